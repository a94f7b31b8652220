/**
 * knowledge-search: retrieval over one collection, for operators to try what the Query service
 * will find. The search itself (filters inside both legs, embeddings through the `embeddings`
 * route, the legs' fusion (`legs`, `fusion`), `advanced_rag` variants, `rerank` and `top_n`, `output_fields`) is the
 * knowledge base's `searchCollection`, the same the Query service runs; this step validates
 * the body and shapes the list. Every model call goes through a route under
 * `knowledge.embedding_key`.
 */
import { GatewayError, definePlugin, describeErrors, reply, validatorFor } from '../../kernel/contract/index.js'
import { embeddingPrincipal } from '../../domains/query/knowledge/embed-route.js'
import { searchCollection, type CollectionSearch } from '../../domains/query/knowledge/search/search-collection.js'
import { configSchema, searchBody, type KnowledgeSearchConfig } from './schema.js'

export default definePlugin({
  name: 'knowledge-search',
  config: configSchema,
  requires: ['admin'],
  setup(config: KnowledgeSearchConfig, kernel) {
    const validate = validatorFor(searchBody)
    const limits = {
      maxTopK: config.max_top_k,
      neighborWindow: config.neighbor_window,
      variants: config.variants,
      variantsModel: config.variants_model ?? kernel.catalog.defaultModel,
      rerankCandidates: config.rerank_candidates,
    }
    return {
      async request(ex) {
        const body = structuredClone(ex.body ?? {})
        if (!validate(body))
          throw new GatewayError(400, `invalid request: ${describeErrors(validate.errors)}`, {
            code: 'invalid_request',
          })
        const search = {
          ...(body as Omit<CollectionSearch, 'project' | 'collection'>),
          project: ex.params.project ?? '',
          collection: ex.params.collection ?? '',
        }
        const kb = kernel.domains.query.knowledge
        // The route is an operator's: its model calls are carried by the knowledge base's key.
        const principal = embeddingPrincipal(kernel.keys, kb.settings.embeddingKey)
        const found = await searchCollection(search, limits, {
          knowledge: kb,
          routes: kernel.domains.query.routes,
          call: (id, x, o) => kernel.call(id, x, o),
          modelOf: (id) => kernel.catalog.model(id),
          principal,
          signal: ex.signal,
          parentId: ex.id,
        })
        ex.reply = reply.json({
          object: 'list',
          retrieval_type: found.retrievalType,
          legs: found.legs,
          ...(found.fusion
            ? {
                fusion: {
                  method: found.fusion.method,
                  k: found.fusion.k,
                  weights: { lexical: found.fusion.lexicalWeight, vector: found.fusion.vectorWeight },
                  adaptive: found.fusion.adaptive,
                },
              }
            : {}),
          ...(found.variants.length ? { query_variants: found.variants } : {}),
          ...(found.rerankerModel ? { reranker_model: found.rerankerModel } : {}),
          data: found.passages.map((p) => p.view),
        })
      },
    }
  },
})
