/**
 * query-rerank: the Query service's `rerank` body type (spec 001 rule 2, REST): documents
 * ordered by relevance to the query by a reranker of the gateway's catalog, answered in the
 * query response envelope. The reranking is a `kernel.call` of the gateway's `rerank` route
 * under the project's key, so it is budgeted, queued and recorded there; `usage_metric` is that
 * call's usage, split into the query (read once per document) and the documents.
 */
import { randomUUID } from 'node:crypto'
import { GatewayError, definePlugin, reply, unitPrices } from '../../kernel/contract/index.js'
import { countTokens } from '../../domains/query/knowledge/tokens.js'
import type { QueryRerankRequest } from '../../schemas/query-bodies.schema.js'
import type { ModelConfig } from '../../schemas/models.schema.js'
import { checkOwnParams } from '../../protocols/query/own-params.js'
import { queryResponse } from '../../protocols/query/response.js'
import { usageMetric } from '../../protocols/query/usage-metric.js'
import { configSchema } from './schema.js'

/** One ranked document of the reply: best first. */
export interface RankedDocument {
  /** Position of the document in the request's `documents`. */
  readonly index: number
  readonly relevance_score: number
  readonly document: string
}

interface GatewayRerankReply {
  readonly model?: unknown
  readonly results?: ReadonlyArray<{ readonly index: number; readonly relevance_score: number }>
}

/**
 * `reranker_provider` is the API the reranker's server speaks (`cohere`, `tei`, `vllm-score`),
 * as in the query's search_params (kernel/services/knowledge/search/rerank.ts): checked against
 * the catalog model's `rerank_api`. The catalog, not the request, decides where a call goes.
 * An unknown or non-rerank model is left to the rerank route (404, 400).
 */
function checkProvider(body: QueryRerankRequest, model: ModelConfig | undefined): void {
  if (body.reranker_provider === undefined || model?.model_type !== 'rerank') return
  const api = model.rerank_api ?? 'cohere'
  if (body.reranker_provider !== api)
    throw new GatewayError(
      400,
      `reranker_provider ${body.reranker_provider} does not match reranker_model ${body.reranker_model}, whose server speaks ${api}`,
      { code: 'invalid_request' },
    )
}

export default definePlugin({
  name: 'query-rerank',
  config: configSchema,
  requires: ['queryAuth', 'principal'],
  setup(config, kernel) {
    const route = config.route
    return {
      async request(ex) {
        const body = ex.body as QueryRerankRequest
        checkOwnParams(ex.state.queryAuth.token.kind, body, [])
        checkProvider(body, kernel.catalog.model(body.reranker_model))
        const result = await kernel.call(
          route,
          { model: body.reranker_model, query: body.query, documents: body.documents, top_n: body.top_n },
          { principal: ex.principal, signal: ex.signal, parentId: ex.id },
        )
        const sent = (result.reply.kind === 'json' ? result.reply.body : undefined) as GatewayRerankReply | undefined
        if (!Array.isArray(sent?.results))
          throw new GatewayError(502, 'the rerank route sent an unreadable reply', { code: 'upstream_failed' })
        const ranked: RankedDocument[] = sent.results.map((r) => ({
          index: r.index,
          relevance_score: r.relevance_score,
          document: body.documents[r.index]!,
        }))
        const model = typeof sent.model === 'string' ? sent.model : body.reranker_model
        const used = result.usage.used()
        const queryTokens = countTokens(body.query)
        // A cross-encoder reads the query once beside each document.
        const measured = {
          user_query: queryTokens * body.documents.length,
          incontext_text: body.documents.reduce((n, d) => n + countTokens(d), 0),
        }
        const usage_metric = usageMetric(
          measured,
          used,
          unitPrices(kernel.catalog.model(result.usage.model ?? model)?.prices),
        )
        ex.reply = reply.json(
          queryResponse('rerank', ranked, {
            sources: {},
            query_id: `q-${randomUUID()}`,
            usage_metric,
            reranker_model: model,
          }),
        )
      },
    }
  },
})
