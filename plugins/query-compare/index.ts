/**
 * query-compare: one query answered by several models at once (spec 001, WebSocket route
 * `query_compare`): the requested model, then the project's `compare_models`. Retrieval runs
 * once and its prompt is shared; every model is then asked through the answer route with
 * kernel.call under the project's key (queued, budgeted and recorded there), streamed. Events:
 * `compare.delta` (a piece of one model's answer, tagged with the model), `compare.summary`
 * (one per model as it ends: answer, latency, time to first token, usage_metric, or its error),
 * then `compare.done` (the REST envelope: every summary, sources, query_id, the total usage).
 */
import { randomUUID } from 'node:crypto'
import {
  GatewayError,
  definePlugin,
  reply,
  toGatewayError,
  unitPrices,
  type StreamEvent,
} from '../../kernel/contract/index.js'
import { searchCollection, type SearchLimits } from '../../domains/query/knowledge/search/search-collection.js'
import type { QueryCompareRequest } from '../../schemas/query-compare-request.schema.js'
import { buildPrompt } from '../../protocols/query/prompt.js'
import { resolveModel } from '../../protocols/query/provider.js'
import { sourcesOf } from '../../protocols/query/sources.js'
import { checkOwnParams } from '../../protocols/query/own-params.js'
import { queryResponse } from '../../protocols/query/response.js'
import { queryErrorBody } from '../../protocols/query/error-body.js'
import { usageMetric, type InputBreakdown, type UsageMetric } from '../../protocols/query/usage-metric.js'
import { EventChannel } from '../../protocols/query/event-channel.js'
import { readAnswerStream, streamingBody } from '../../protocols/query/answer-stream.js'
import { totalMetric } from './usage-total.js'
import { configSchema, type QueryCompareConfig } from './schema.js'

const ZERO = usageMetric({}, { inputTokens: 0, outputTokens: 0 }, { input: 0, output: 0 })
const bad = (message: string) => new GatewayError(400, message, { code: 'invalid_request' })
const ms = (x: number) => Math.round(x * 10) / 10

export default definePlugin({
  name: 'query-compare',
  config: configSchema,
  requires: ['queryAuth', 'principal'],
  provides: [],
  setup(config: QueryCompareConfig, kernel) {
    const providers = config.providers ?? { gateway: {} }
    const answerRoute = config.answer_route
    const tokenizeRoute = config.tokenize_route
    const limits: SearchLimits = {
      maxTopK: config.max_top_k,
      neighborWindow: 1,
      variants: 1,
      variantsModel: kernel.catalog.defaultModel,
      rerankCandidates: 50,
    }
    const call = (id: string, body: unknown, o?: Parameters<typeof kernel.call>[2]) => kernel.call(id, body, o)
    const modelOf = (id: string) => kernel.catalog.model(id)
    return {
      async request(ex) {
        const { project, token } = ex.state.queryAuth
        const body = ex.body as QueryCompareRequest
        // A compare always names its model (the spec's required fields), so those are not "own
        // parameters" here; `request_source`, which service-token clients send, is checked for its value.
        checkOwnParams(token.kind, body, [])
        const defaults = project.defaults
        const requested = resolveModel(kernel.catalog, providers, body.model_provider, body.model_name)
        const models = [...new Set([requested, ...project.compareModels])].slice(0, config.max_models)
        const sp = body.search_params ?? {}
        const mode = sp.prompt_mode ?? 'default'
        if (mode === 'custom') {
          const missing = ['{data}', '{query}'].filter((p) => !(sp.search_prompt ?? '').includes(p))
          if (missing.length)
            throw bad(
              `search_params.search_prompt must contain {data} and {query} when prompt_mode is custom (missing ${missing.join(' and ')})`,
            )
        }
        const collection = sp.collection ?? (token.kind === 'service' ? defaults.search_params?.collection : undefined)
        if (body.enable_search && collection === undefined) {
          throw bad(
            token.kind === 'developer'
              ? 'search_params.collection is required with a developer token when enable_search is true'
              : 'search_params.collection is required when enable_search is true (the project has no default collection)',
          )
        }
        const options = { principal: ex.principal, signal: ex.signal, parentId: ex.id }
        // Retrieval runs once; every model reads the same prompt.
        const found = body.enable_search
          ? await searchCollection(
              {
                project: project.id,
                collection: collection!,
                query: body.query,
                top_k: sp.top_k ?? defaults.search_params?.top_k ?? 5,
                retrieval_type: defaults.search_params?.retrieval_type ?? 'chunk',
                output_fields: sp.output_fields ?? defaults.search_params?.output_fields,
                legs: sp.legs ?? defaults.search_params?.legs,
                fusion: sp.fusion ?? defaults.search_params?.fusion,
              },
              limits,
              {
                knowledge: kernel.domains.query.knowledge,
                routes: kernel.domains.query.routes,
                call,
                modelOf,
                ...options,
              },
            )
          : undefined
        const prompt = buildPrompt({
          query: body.query,
          systemPrompt: defaults.model_params?.system_prompt ?? config.default_system_prompt,
          enhancement: [],
          mode,
          template: sp.search_prompt,
          passages: found?.passages.map((x) => ({
            sourceName: x.sourceName,
            pageNumber: x.chunks[0]?.pageNumber,
            text: x.text,
          })),
          history: [],
          inContextText: '',
          imageParts: [],
        })
        // The prompt's parts, counted once by the requested model's server (as the query does);
        // without a count, each model's whole input is reported as system_prompt.
        const measured: Promise<Partial<InputBreakdown>> = kernel
          .call(tokenizeRoute, { model: requested, texts: prompt.parts }, options)
          .then(({ reply: r }) =>
            r.kind === 'json' && r.status === 200
              ? ((r.body as { counts?: Partial<InputBreakdown> }).counts ?? {})
              : {},
          )
          .catch(() => ({}))
        const chat: Record<string, unknown> = { messages: prompt.messages }
        if (defaults.model_params?.temperature !== undefined) chat.temperature = defaults.model_params.temperature
        if (body.response_format?.type === 'json') chat.response_format = { type: 'json_object' }
        const events = new EventChannel<StreamEvent>()

        /** One model's answer, streamed; its summary (or its error: the others go on). */
        const answer = async (model: string): Promise<Record<string, unknown> & { usage_metric?: UsageMetric }> => {
          const started = performance.now()
          let summary: Record<string, unknown> & { usage_metric?: UsageMetric }
          try {
            const result = await kernel.call(answerRoute, streamingBody({ ...chat, model }), options)
            const read = await readAnswerStream(result, (delta) => events.push({ type: 'compare.delta', model, delta }))
            const used = result.usage.used()
            const answered = kernel.catalog.model(result.usage.model ?? model)
            summary = {
              model,
              answer: read.text,
              finish_reason: read.finishReason,
              latency_ms: ms(performance.now() - started),
              time_to_first_token_ms: read.firstDeltaAt === undefined ? null : ms(read.firstDeltaAt - started),
              usage_metric: usageMetric(
                await measured,
                used.source === 'none' ? { inputTokens: 0, outputTokens: 0 } : used,
                unitPrices(answered?.prices),
              ),
            }
          } catch (err) {
            if (ex.signal.aborted) throw err
            summary = { model, latency_ms: ms(performance.now() - started), ...queryErrorBody(toGatewayError(err)) }
          }
          await events.push({ type: 'compare.summary', ...summary })
          return summary
        }

        Promise.all(models.map(answer)).then(
          (summaries) => {
            const metrics = summaries.flatMap((s) => (s.usage_metric ? [s.usage_metric] : []))
            const response = queryResponse('query_compare', summaries, {
              sources: sourcesOf(found?.passages),
              query_id: `q-${randomUUID()}`,
              usage_metric: totalMetric(metrics, ZERO),
              models,
              ...(body.session_id ? { session_id: body.session_id } : {}),
            })
            void events.push({ type: 'compare.done', response }).catch(() => undefined)
            events.end()
          },
          (err: unknown) => events.end(err),
        )
        ex.reply = reply.events(events)
      },
    }
  },
})
