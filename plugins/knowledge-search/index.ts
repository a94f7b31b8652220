/**
 * knowledge-search: retrieval over one collection, for operators to try what the Query service
 * will find. The query is embedded with the collection's model (through the `embeddings`
 * route); the lexical and vector legs are fused by reciprocal rank fusion; the filter (`expr`,
 * `tags`, `source_names`) applies inside both legs. A bad `expr` is a 400 naming the position.
 * `output_fields` shapes each chunk (output-fields.ts); `advanced_rag` adds model-made query
 * variants (query-variants.ts); `rerank` reorders the results with a reranker and `top_n` cuts
 * them (rerank-step.ts). Every model call goes through a route under `knowledge.embedding_key`.
 */
import { definePlugin } from '../../kernel/plugin.js'
import { GatewayError } from '../../kernel/errors.js'
import { reply } from '../../kernel/reply.js'
import { describeErrors, validatorFor } from '../../kernel/ajv.js'
import { FilterError } from '../../protocols/query/filter-error.js'
import { checkFilter, parseFilter } from '../../protocols/query/filter-parse.js'
import { andFilters, compileFilter, sourceNamesFilter, tagsFilter } from '../../kernel/services/knowledge/filter-sql.js'
import { retrieveChunks, retrieveDocuments, retrieveNeighbors, type SearchRequest } from '../../kernel/services/knowledge/retrieve.js'
import type { CompiledFilter } from '../../kernel/services/knowledge/model.js'
import { embeddingPrincipal, embedThroughRoute } from '../../kernel/services/knowledge/embed-route.js'
import { configSchema, searchBody, type KnowledgeSearchConfig } from './schema.js'
import { chunkShape, customFields, type ChunkShape } from './output-fields.js'
import { rerankItems, rerankPlan, truthy, type RerankParams } from './rerank-step.js'
import { queryVariants } from './query-variants.js'

interface SearchBody extends RerankParams {
  query: string
  top_k: number
  retrieval_type: 'chunk' | 'document' | 'neighbor'
  legs: 'hybrid' | 'lexical' | 'vector'
  expr?: string
  tags?: string[]
  source_names?: string[]
  token_budget?: number
  output_fields?: string[]
  advanced_rag?: boolean | 'true' | 'false'
}

const bad = (message: string) => new GatewayError(400, message, { code: 'invalid_request' })

/** The request's filters as one compiled condition; a bad expression is a 400 with its position. */
export function requestFilter(body: Pick<SearchBody, 'expr' | 'tags' | 'source_names'>): CompiledFilter | undefined {
  const parts: CompiledFilter[] = []
  if (body.expr !== undefined && body.expr.trim() !== '') {
    try {
      parts.push(compileFilter(checkFilter(parseFilter(body.expr))))
    } catch (err) {
      if (err instanceof FilterError) throw new GatewayError(400, err.message, { code: 'invalid_request' })
      throw err
    }
  }
  if (body.tags?.length) parts.push(tagsFilter(body.tags))
  if (body.source_names?.length) parts.push(sourceNamesFilter(body.source_names))
  return parts.length ? andFilters(...parts) : undefined
}

export default definePlugin({
  name: 'knowledge-search',
  config: configSchema,
  requires: ['admin'],
  setup(config: KnowledgeSearchConfig, kernel) {
    const validate = validatorFor(searchBody)
    const maxTopK = config.max_top_k ?? 100
    const window = config.neighbor_window ?? 1
    const variantCount = config.variants ?? 3
    const candidates = config.rerank_candidates ?? 50
    const call = (id: string, x: unknown, o?: Parameters<typeof kernel.call>[2]) => kernel.call(id, x, o)
    return {
      async request(ex) {
        const body = structuredClone(ex.body ?? {})
        if (!validate(body)) throw bad(`invalid request: ${describeErrors(validate.errors)}`)
        const b = body as SearchBody
        if (b.top_k > maxTopK) throw bad(`top_k ${b.top_k} is over this route's limit of ${maxTopK}`)
        const filter = requestFilter(b)
        const asked = rerankPlan(b, (id) => kernel.catalog.model(id))
        // Without top_n, reranking keeps top_k.
        const plan = asked && { ...asked, topN: asked.topN ?? b.top_k }
        const project = ex.params.project ?? ''
        const kb = kernel.knowledge
        const collection = await kb.getCollection(project, ex.params.collection ?? '')
        const shape = await shapeFor(b.output_fields, () => kb.store.listDocuments(project, collection.name))
        // The route is an operator's: its model calls are carried by the knowledge base's key.
        const principal = embeddingPrincipal(kernel.keys, kb.settings.embeddingKey)
        const context = { principal, signal: ex.signal, parentId: ex.id }
        const variants = truthy(b.advanced_rag) ? await queryVariants(call, config.variants_model ?? kernel.catalog.defaultModel, b.query, variantCount, context) : []
        let embeddings: Float32Array[] = []
        if (b.legs !== 'lexical') {
          const embed = embedThroughRoute(call, principal, { signal: ex.signal, parentId: ex.id })
          embeddings = await kb.embedAll(kb.modelOf(collection), [b.query, ...variants], embed)
        }
        const lexical = b.legs !== 'vector'
        const req: SearchRequest = {
          project,
          collection: collection.name,
          // With rerank, more candidates than top_k go to the reranker; top_n cuts after it.
          topK: plan ? Math.max(b.top_k, Math.min(candidates, maxTopK)) : b.top_k,
          query: lexical ? b.query : undefined,
          embedding: embeddings[0],
          filter,
          variants: variants.map((v, i) => ({ query: lexical ? v : undefined, embedding: embeddings[i + 1] })),
        }
        const reranked = <T extends object>(items: T[], textOf: (item: T) => string): Promise<T[]> =>
          plan ? rerankItems(call, plan, b.query, items, textOf, context) : Promise.resolve(items)
        const common = { object: 'list', retrieval_type: b.retrieval_type, legs: b.legs, ...(variants.length ? { query_variants: variants } : {}), ...(plan ? { reranker_model: plan.model } : {}) }
        if (b.retrieval_type === 'chunk') {
          const chunks = await reranked(await retrieveChunks(kb.store, req), (c) => c.content)
          ex.reply = reply.json({ ...common, data: chunks.map(shape) })
        } else if (b.retrieval_type === 'document') {
          const docs = await reranked(await retrieveDocuments(kb.store, req, b.token_budget), (d) => d.chunks.map((c) => c.content).join('\n'))
          ex.reply = reply.json({ ...common, data: docs.map((d) => ({ source_name: d.sourceName, score: d.score, ...rerankScore(d), truncated: d.truncated, chunks: d.chunks.map(shape) })) })
        } else {
          const passages = await reranked(await retrieveNeighbors(kb.store, req, window), (p) => p.chunks.map((c) => c.content).join('\n'))
          ex.reply = reply.json({
            ...common,
            data: passages.map((p) => ({ source_name: p.sourceName, score: p.score, ...rerankScore(p), hits: p.chunks.filter((c) => p.hits.includes(c.id)).map((c) => c.index), chunks: p.chunks.map(shape) })),
          })
        }
      },
    }
  },
})

function rerankScore(x: object): { rerank_score?: number } {
  const s = (x as { rerank_score?: number }).rerank_score
  return s === undefined ? {} : { rerank_score: s }
}

/** The chunk shape of `output_fields`; the collection's metadata keys are read only when a custom field is named. */
async function shapeFor(fields: string[] | undefined, documents: () => Promise<{ metadata: object }[]>): Promise<ChunkShape> {
  if (!customFields(fields).length) return chunkShape(fields)
  const keys = new Set((await documents()).flatMap((d) => Object.keys(d.metadata)))
  return chunkShape(fields, keys)
}
