/**
 * knowledge-search: retrieval over one collection, for operators to try what the Query service
 * will find. The query is embedded with the collection's model (through the `embeddings`
 * route); the lexical and vector legs are fused by reciprocal rank fusion; the filter (`expr`,
 * `tags`, `source_names`) applies inside both legs. A bad `expr` is a 400 naming the position.
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
import type { StoredChunk } from '../../kernel/services/knowledge/store.js'
import { embeddingPrincipal, embedThroughRoute } from '../../kernel/services/knowledge/embed-route.js'
import { configSchema, searchBody, type KnowledgeSearchConfig } from './schema.js'

interface SearchBody {
  query: string
  top_k: number
  retrieval_type: 'chunk' | 'document' | 'neighbor'
  legs: 'hybrid' | 'lexical' | 'vector'
  expr?: string
  tags?: string[]
  source_names?: string[]
  token_budget?: number
}

const bad = (message: string) => new GatewayError(400, message, { code: 'invalid_request' })

function chunkView(c: StoredChunk & { score?: number }) {
  return {
    source_name: c.sourceName,
    url: c.url,
    tags: c.tags,
    metadata: c.metadata,
    index: c.index,
    heading_path: c.headingPath,
    page_number: c.pageNumber,
    content: c.content,
    ...(c.score === undefined ? {} : { score: c.score }),
  }
}

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
    return {
      async request(ex) {
        const body = structuredClone(ex.body ?? {})
        if (!validate(body)) throw bad(`invalid request: ${describeErrors(validate.errors)}`)
        const b = body as SearchBody
        if (b.top_k > maxTopK) throw bad(`top_k ${b.top_k} is over this route's limit of ${maxTopK}`)
        const filter = requestFilter(b)
        const project = ex.params.project ?? ''
        const kb = kernel.knowledge
        const collection = await kb.getCollection(project, ex.params.collection ?? '')
        let embedding: Float32Array | undefined
        if (b.legs !== 'lexical') {
          const principal = embeddingPrincipal(kernel.keys, kb.settings.embeddingKey)
          const embed = embedThroughRoute((id, x, o) => kernel.call(id, x, o), principal, { signal: ex.signal, parentId: ex.id })
          ;[embedding] = await kb.embedAll(kb.modelOf(collection), [b.query], embed)
        }
        const req: SearchRequest = {
          project,
          collection: collection.name,
          topK: b.top_k,
          query: b.legs === 'vector' ? undefined : b.query,
          embedding,
          filter,
        }
        const common = { object: 'list', retrieval_type: b.retrieval_type, legs: b.legs }
        if (b.retrieval_type === 'chunk') {
          ex.reply = reply.json({ ...common, data: (await retrieveChunks(kb.store, req)).map(chunkView) })
        } else if (b.retrieval_type === 'document') {
          const docs = await retrieveDocuments(kb.store, req, b.token_budget)
          ex.reply = reply.json({ ...common, data: docs.map((d) => ({ source_name: d.sourceName, score: d.score, truncated: d.truncated, chunks: d.chunks.map(chunkView) })) })
        } else {
          const passages = await retrieveNeighbors(kb.store, req, window)
          ex.reply = reply.json({
            ...common,
            data: passages.map((p) => ({ source_name: p.sourceName, score: p.score, hits: p.chunks.filter((c) => p.hits.includes(c.id)).map((c) => c.index), chunks: p.chunks.map(chunkView) })),
          })
        }
      },
    }
  },
})
