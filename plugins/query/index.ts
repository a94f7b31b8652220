/**
 * query: the Query service's query (spec 001). The request's parameters over the project's
 * defaults (params.ts), then, at once: the in-context files of a chat upload, the conversation's
 * earlier turns, and the search of the project's collection. Then the prompt (prompt.ts), the
 * answer from the answer route with kernel.call under the project's key (queued, budgeted and
 * recorded there), the prompt's parts counted for `usage_metric`, evaluation when asked, and
 * the turn remembered. The reply is the spec's envelope (protocols/query/response.ts).
 */
import { randomUUID } from 'node:crypto'
import { GatewayError, ajv, definePlugin, reply, unitPrices } from '../../kernel/contract/index.js'
import type { ValidateFunction } from 'ajv'
import { countTokens } from '../../domains/query/knowledge/tokens.js'
import {
  searchCollection,
  type Passage,
  type SearchLimits,
} from '../../domains/query/knowledge/search/search-collection.js'
import { rerankPlan } from '../../domains/query/knowledge/search/rerank.js'
import type { QueryRequest } from '../../schemas/query-request.schema.js'
import { queryResponse } from '../../protocols/query/response.js'
import { usageMetric, type UsageMetric } from '../../protocols/query/usage-metric.js'
import { resolveParams, type QueryParams } from './params.js'
import { resolveModel } from '../../protocols/query/provider.js'
import { enhancementLines } from './enhancement.js'
import { buildPrompt } from '../../protocols/query/prompt.js'
import { guardFor, judgeRelevance } from './relevance.js'
import { ask, chatBody, type Answer } from './answer.js'
import { askStreaming, streamedQuery, type OnDelta } from './stream.js'
import { countParts } from './token-parts.js'
import { sourcesOf } from '../../protocols/query/sources.js'
import { historyContext, rememberTurn } from './history-context.js'
import { inContextFiles } from './in-context-files.js'
import { evaluate } from './evaluation.js'
import { configSchema, type QueryConfig } from './schema.js'

const ZERO = { inputTokens: 0, outputTokens: 0 }

export default definePlugin({
  name: 'query',
  config: configSchema,
  requires: ['queryAuth', 'principal'],
  provides: [],
  setup(config: QueryConfig, kernel) {
    const providers = config.providers ?? { gateway: {} }
    const search = config.search
    const limits: SearchLimits = {
      maxTopK: search.max_top_k,
      neighborWindow: search.neighbor_window,
      variants: search.variants,
      variantsModel: search.variants_model ?? kernel.catalog.defaultModel,
      rerankCandidates: search.rerank_candidates,
    }
    const answerRoute = config.answer_route
    const tokenizeRoute = config.tokenize_route
    const guard = config.restricted_guard
    const call = (id: string, body: unknown, o?: Parameters<typeof kernel.call>[2]) => kernel.call(id, body, o)
    const modelOf = (id: string) => kernel.catalog.model(id)
    return {
      async request(ex) {
        const { project, token } = ex.state.queryAuth
        const p = resolveParams(ex.body as QueryRequest, project.defaults, token)
        const model = resolveModel(kernel.catalog, providers, p.modelProvider, p.modelName)
        const enhancement = enhancementLines(p.enhance, kernel.now())
        // The rerank trio is a rule of the request, whether or not search runs this time.
        rerankPlan(p.searchParams, modelOf)
        checkSchema(p)
        const options = { principal: ex.principal, signal: ex.signal, parentId: ex.id }
        const sp = p.searchParams
        const started = performance.now()
        const timings = { retrieval_ms: 0, answer_ms: 0 }
        const [files, history, found] = await Promise.all([
          inContextFiles(kernel.domains.query.uploads, {
            projectId: project.id,
            sessionId: p.sessionId,
            queryId: p.uploadId,
            chatUpload: p.chatUpload,
          }),
          historyContext(kernel.domains.query.history, {
            projectId: project.id,
            sessionId: p.sessionId,
            enabled: p.enableHistory,
            supplied: p.history,
            budgetTokens: config.history_budget_tokens,
            countTokens,
            maxTurns: config.history_turns,
          }),
          p.enableSearch
            ? searchCollection(
                {
                  ...sp,
                  project: project.id,
                  collection: sp.collection!,
                  query: p.query,
                  top_k: sp.top_k ?? 5,
                  retrieval_type: sp.retrieval_type ?? 'chunk',
                },
                limits,
                {
                  knowledge: kernel.domains.query.knowledge,
                  routes: kernel.domains.query.routes,
                  call,
                  modelOf,
                  ...options,
                },
              ).finally(() => (timings.retrieval_ms = performance.now() - started))
            : undefined,
        ])
        const queryId = `q-${randomUUID()}`
        const passages = found?.passages
        const mode = sp.prompt_mode ?? 'restricted'
        const restricted = mode === 'restricted' || mode === 'default'
        const evalContexts = passages?.map((x) => x.text) ?? []
        // Restricted mode's guard (relevance.ts): a name the passages lack is looked up in the
        // collection's lexical index, one word, no model.
        const bears = async (found: readonly Passage[]) =>
          (
            await judgeRelevance(p.query, found, guardFor(guard, sp.collection), async (word) => {
              const store = kernel.domains.query.knowledge.store
              return (await store.lexical(project.id, sp.collection!, word, 1)).length > 0
            })
          ).bears
        // Streamed on the WebSocket (stream.ts): the answer's deltas, then this reply's body.
        const respond = async (onDelta?: OnDelta): Promise<unknown> => {
          let answer: Answer | undefined
          let metric: UsageMetric
          let text: string
          let usedPassages: readonly Passage[] | undefined = passages
          if (passages && restricted && !files.text && !files.imageParts.length && !(await bears(passages))) {
            // Nothing retrieved bears enough on the question (relevance.ts): say so without asking a model.
            text = config.no_answer_text
            usedPassages = []
            metric = usageMetric({}, ZERO, { input: 0, output: 0 })
            await onDelta?.(text)
          } else {
            const prompt = buildPrompt({
              query: p.query,
              systemPrompt: p.modelParams.system_prompt ?? config.default_system_prompt,
              enhancement,
              mode,
              template: sp.search_prompt,
              passages: passages?.map((x) => ({
                sourceName: x.sourceName,
                pageNumber: x.chunks[0]?.pageNumber,
                text: x.text,
              })),
              history: history.messages,
              inContextText: files.text,
              imageParts: files.imageParts,
            })
            const body = chatBody(model, prompt.messages, p.modelParams, p.responseType)
            const asking = performance.now()
            const answering = onDelta
              ? askStreaming(call, answerRoute, body, options, onDelta)
              : ask(call, answerRoute, body, options)
            const [asked, counted] = await Promise.all([
              answering,
              countParts(call, tokenizeRoute, model, prompt.parts, options),
            ])
            timings.answer_ms = performance.now() - asking
            answer = asked
            const used = asked.result.usage.used()
            const answered = kernel.catalog.model(asked.result.usage.model ?? model)
            // Image parts are counted as the model counts them (models.yaml tokens_per_image).
            const measured = {
              ...counted.counts,
              incontext_text: (counted.counts.incontext_text ?? 0) + files.imageParts.length * imageTokensOf(answered),
            }
            metric = usageMetric(measured, used.source === 'none' ? ZERO : used, unitPrices(answered?.prices))
            text = asked.text
          }
          const judged = p.evalParams.context_utilization || p.evalParams.prompt_guard
          const evaluation = !judged
            ? undefined
            : await evaluate(call, {
                ...options,
                flags: p.evalParams,
                judgeModel: config.evaluation?.judge_model ?? kernel.catalog.defaultModel,
                guardModel: config.evaluation?.guard_model ?? kernel.catalog.defaultModel,
                query: p.query,
                answer: text,
                contexts: evalContexts,
                modelOf,
              })
          if (p.enableHistory && p.sessionId) {
            await rememberTurn(kernel.domains.query.history, {
              projectId: project.id,
              sessionId: p.sessionId,
              queryId,
              query: p.query,
              answer: text,
              at: kernel.now(),
            })
          }
          const imageTokens = imageTokensOf(kernel.catalog.model(answer?.result.usage.model ?? model))
          return queryResponse('query', shapeAnswer(p, text, answer), {
            sources: sourcesOf(usedPassages),
            query_id: queryId,
            usage_metric: metric,
            model: answer?.result.usage.model ?? model,
            timings_ms: {
              retrieval: round(timings.retrieval_ms),
              answer: round(timings.answer_ms),
              total: round(performance.now() - started),
            },
            ...(answer ? { finish_reason: answer.finishReason } : { answered_from_context: false }),
            ...(answer?.toolCalls.length ? { tool_calls: answer.toolCalls } : {}),
            ...(p.sessionId ? { session_id: p.sessionId } : {}),
            ...(history.messages.length ? { history_messages: history.messages.length } : {}),
            ...(files.files.length
              ? {
                  files: files.files.map((f) => ({
                    name: f.name,
                    kind: f.kind,
                    tokens: f.text === undefined ? imageTokens : countTokens(f.text),
                  })),
                }
              : {}),
            ...(evaluation ? { evaluation } : {}),
          })
        }
        if (ex.transport === 'ws') ex.reply = reply.events(streamedQuery(respond))
        else ex.reply = reply.json(await respond())
      },
    }
  },
})

const round = (ms: number): number => Math.round(ms * 10) / 10

/** Prompt tokens of one image part for a model (models.yaml tokens_per_image). */
const imageTokensOf = (model: { tokens_per_image?: number } | undefined): number => model?.tokens_per_image ?? 1024

/** The caller's structured-output schema must itself be a schema ajv can compile (else 400). */
function checkSchema(p: QueryParams): void {
  const schema = p.modelParams.response_format?.json_schema?.schema
  if (schema === undefined) return
  try {
    withSchema(schema, () => undefined)
  } catch (err) {
    throw new GatewayError(
      400,
      `model_params.response_format.json_schema.schema is not a valid JSON Schema: ${(err as Error).message}`,
      { code: 'invalid_request' },
    )
  }
}

/**
 * `response.response`: the text (`text`); the parsed JSON value (`json`, or a JSON schema in
 * model_params.response_format, checked against it); or the whole chat completion (`openai`).
 */
function shapeAnswer(p: QueryParams, text: string, answer: Answer | undefined): unknown {
  if (!answer) return text
  if (p.responseType === 'openai') return answer.completion
  const schema = p.modelParams.response_format?.json_schema?.schema
  if (answer.toolCalls.length && !text) return text
  if (p.responseType !== 'json' && schema === undefined) return text
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new GatewayError(502, 'the model did not answer with JSON', { code: 'upstream_failed' })
  }
  if (schema !== undefined && !withSchema(schema, (validate) => validate(value))) {
    throw new GatewayError(502, "the model's answer does not satisfy model_params.response_format.json_schema", {
      code: 'upstream_failed',
    })
  }
  return value
}

/** Compiles a caller's schema for one use and drops it from ajv's cache, which would otherwise keep every request's. */
function withSchema<T>(schema: object, use: (validate: ValidateFunction) => T): T {
  const validate = ajv.compile(schema)
  try {
    return use(validate)
  } finally {
    ajv.removeSchema(schema)
  }
}
