/**
 * query-search: the Query service's `search` body type (spec 001 rule 2: REST only):
 * retrieval without an answer. The request's `search_params` over the project's defaults
 * (field by field, as the query merges them) run the knowledge base's one search
 * (kernel/services/knowledge/search/: filters, hybrid retrieval, `advanced_rag` variants,
 * rerank with `top_n`, `output_fields`), whose model calls go through gateway routes with
 * kernel.call under the project's key. The reply is the query response envelope with the
 * results as `response.response` and, as a query would give them, `metadata.sources`.
 */
import { randomUUID } from 'node:crypto'
import { GatewayError, definePlugin, reply } from '../../kernel/contract/index.js'
import { searchCollection, type SearchLimits } from '../../domains/query/knowledge/search/search-collection.js'
import type { QuerySearchRequest } from '../../schemas/query-bodies.schema.js'
import { checkOwnParams } from '../../protocols/query/own-params.js'
import { queryResponse } from '../../protocols/query/response.js'
import { sourcesOf } from '../../protocols/query/sources.js'
import { configSchema } from './schema.js'
import { MeteredCalls } from './metered-calls.js'

/** Fields of the body that have a project default: a service token needs override_params to send them. */
const OWN_PARAMS = ['search_params']

const bad = (message: string) => new GatewayError(400, message, { code: 'invalid_request' })

export default definePlugin({
  name: 'query-search',
  config: configSchema,
  requires: ['queryAuth', 'principal'],
  setup(config, kernel) {
    const limits: SearchLimits = {
      maxTopK: config.max_top_k,
      neighborWindow: config.neighbor_window,
      variants: config.variants,
      variantsModel: config.variants_model ?? kernel.catalog.defaultModel,
      rerankCandidates: config.rerank_candidates,
    }
    const defaultTopK = config.default_top_k
    const modelOf = (id: string) => kernel.catalog.model(id)
    return {
      async request(ex) {
        const body = ex.body as QuerySearchRequest
        const { project, token } = ex.state.queryAuth
        checkOwnParams(token.kind, body, OWN_PARAMS)
        // Spec rule 3: a developer token names the collection itself.
        if (token.kind === 'developer' && body.search_params?.collection === undefined)
          throw bad('search_params.collection is required with a developer token')
        const { prompt_mode: _mode, search_prompt: _prompt, ...defaults } = project.defaults.search_params ?? {}
        const sp = { ...defaults, ...body.search_params }
        if (sp.collection === undefined)
          throw bad('search_params.collection is required (the project has no default collection)')
        const metered = new MeteredCalls((id, b, o) => kernel.call(id, b, o))
        const found = await searchCollection(
          {
            ...sp,
            project: project.id,
            collection: sp.collection,
            query: body.query,
            top_k: sp.top_k ?? defaultTopK,
            retrieval_type: sp.retrieval_type ?? 'chunk',
          },
          limits,
          {
            knowledge: kernel.domains.query.knowledge,
            routes: kernel.domains.query.routes,
            call: metered.call,
            modelOf,
            principal: ex.principal,
            signal: ex.signal,
            parentId: ex.id,
          },
        )
        const metadata = {
          sources: sourcesOf(found.passages),
          query_id: `q-${randomUUID()}`,
          usage_metric: metered.usageMetric(body.query, modelOf),
          collection: sp.collection,
          retrieval_type: found.retrievalType,
          ...(found.variants.length ? { query_variants: found.variants } : {}),
          ...(found.rerankerModel ? { reranker_model: found.rerankerModel } : {}),
        }
        ex.reply = reply.json(
          queryResponse(
            'search',
            found.passages.map((p) => p.view),
            metadata,
          ),
        )
      },
    }
  },
})
