/**
 * query-vision: the Query service's `vision` body type (spec 001 rule 2, REST): a question about
 * one image, answered by a chat model of the gateway's catalog through the internal
 * `query-chat` route (chat with boons) with `kernel.call` under the project's key, so the call
 * is budgeted, queued and recorded there. The reply is the query response envelope; its
 * `usage_metric` splits the call's input into the query (`user_query`), the system prompt and
 * the image (`incontext_text`).
 */
import { randomUUID } from 'node:crypto'
import { GatewayError, definePlugin, reply, unitPrices } from '../../kernel/contract/index.js'
import { countTokens } from '../../domains/query/knowledge/tokens.js'
import type { QueryVisionRequest } from '../../schemas/query-bodies.schema.js'
import { checkOwnParams } from '../../protocols/query/own-params.js'
import { queryResponse } from '../../protocols/query/response.js'
import { usageMetric } from '../../protocols/query/usage-metric.js'
import { TOKENS_PER_MESSAGE } from '../../protocols/openai/token-estimate.js'
import { configSchema } from './schema.js'
import { imageUrlOf } from './image.js'
import { visionModel } from './model-choice.js'

/** Fields of the body that have a project default: a service token needs override_params to send them. */
const OWN_PARAMS = ['model_provider', 'model_name', 'model_params']

type VisionParams = NonNullable<QueryVisionRequest['model_params']>

export default definePlugin({
  name: 'query-vision',
  config: configSchema,
  requires: ['queryAuth', 'principal'],
  setup(config, kernel) {
    const route = config.route
    const maxImageBytes = config.max_image_bytes
    return {
      async request(ex) {
        const body = ex.body as QueryVisionRequest
        const { project, token } = ex.state.queryAuth
        checkOwnParams(token.kind, body, OWN_PARAMS)
        const url = imageUrlOf(body.image, body.image_content_type, maxImageBytes)
        const model = visionModel(kernel, body, project.defaults, ex.principal)
        // A request's own value overrides the project's default, field by field.
        const params: VisionParams = { ...pick(project.defaults.model_params ?? {}), ...body.model_params }
        const system = params.system_prompt
        const messages = [
          ...(system ? [{ role: 'system', content: system }] : []),
          {
            role: 'user',
            content: [
              { type: 'text', text: body.query },
              { type: 'image_url', image_url: { url } },
            ],
          },
        ]
        const chat = {
          model,
          messages,
          ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
          ...(params.top_p !== undefined ? { top_p: params.top_p } : {}),
          ...(params.top_k !== undefined ? { top_k: params.top_k } : {}),
          ...(params.max_tokens !== undefined ? { max_tokens: params.max_tokens } : {}),
          ...(params.thinking_level !== undefined ? { reasoning_effort: params.thinking_level.toLowerCase() } : {}),
        }
        const result = await kernel.call(route, chat, { principal: ex.principal, signal: ex.signal, parentId: ex.id })
        const answer = answerOf(result.reply.kind === 'json' ? result.reply.body : undefined)
        const used = result.usage.used()
        const answeredBy = result.usage.model ?? model
        const answering = kernel.catalog.model(answeredBy)
        const queryTokens = countTokens(body.query)
        const systemTokens = system ? countTokens(system) : 0
        // A vision model counts the image as models.yaml says (tokens_per_image, as the query
        // does); a text-only model read the boon's description of it instead: what the text and
        // the chat template's framing do not account for.
        const framing = 8 + TOKENS_PER_MESSAGE * messages.length
        const imageTokens = answering?.supports_vision
          ? (answering.tokens_per_image ?? 1024)
          : Math.max(0, used.inputTokens - queryTokens - systemTokens - framing)
        const measured = { user_query: queryTokens, system_prompt: systemTokens, incontext_text: imageTokens }
        const usage_metric = usageMetric(measured, used, unitPrices(answering?.prices))
        ex.reply = reply.json(
          queryResponse('vision', answer, {
            sources: {},
            query_id: `q-${randomUUID()}`,
            usage_metric,
            model_provider: 'gateway',
            model_name: answeredBy,
          }),
        )
      },
    }
  },
})

/** The vision subset of a project's default model_params. */
function pick(p: Record<string, unknown>): VisionParams {
  const out: Record<string, unknown> = {}
  for (const k of ['temperature', 'system_prompt', 'top_p', 'top_k', 'thinking_level', 'max_tokens'])
    if (p[k] !== undefined) out[k] = p[k]
  return out as VisionParams
}

function answerOf(completion: unknown): string {
  const choice = (completion as { choices?: Array<{ message?: { content?: unknown } }> } | undefined)?.choices?.[0]
  const content = choice?.message?.content
  if (typeof content === 'string') return content
  if (content === null || content === undefined) return ''
  throw new GatewayError(502, 'the model sent an unreadable reply', { code: 'upstream_failed' })
}
