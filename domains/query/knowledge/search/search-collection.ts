/**
 * One search of a project's collection, as the operators' search route and the Query service
 * both run it: the filters (`expr`, `tags`, `source_names`) compiled into both legs, the query
 * embedded with the collection's model through the `embeddings` route, `advanced_rag`'s query
 * variants, the legs' fusion (the request's over the collection's and deployment's settings), `rerank` with `top_n`, and `output_fields` shaping each chunk. Every
 * model call goes through a route with kernel.call under the given principal.
 */
import { GatewayError, type Principal } from '../../../../kernel/contract/index.js'
import type { ModelConfig } from '../../../../schemas/models.schema.js'
import { FilterError } from '../../../../protocols/query/filter-error.js'
import { checkFilter, parseFilter } from '../../../../protocols/query/filter-parse.js'
import { FIXED_FIELDS, metadataKeysOf } from '../../../../protocols/query/filter-ast.js'
import { andFilters, compileFilter, sourceNamesFilter, tagsFilter } from '../filter-sql.js'
import { retrieveChunks, retrieveDocuments, retrieveNeighbors, type SearchRequest } from '../retrieve.js'
import type { CompiledFilter } from '../model.js'
import type { KnowledgeBase } from '../knowledge-base.js'
import type { StoredChunk } from '../store.js'
import { embedThroughRoute } from '../embed-route.js'
import { chunkShape, customFields, type ChunkShape, type ChunkView } from './output-fields.js'
import { rerankItems, rerankPlan, truthy, type RerankParams, type RouteCall } from './rerank.js'
import { queryVariants } from './query-variants.js'
import type { QueryRoutes } from '../../query-settings.js'
import type { FusionSetting } from '../../../../schemas/retrieval.schema.js'
import type { Fusion } from '../fusion.js'
import { searchSettings } from './search-settings.js'

export type RetrievalType = 'chunk' | 'document' | 'neighbor'
export type Legs = 'hybrid' | 'lexical' | 'vector'

export interface CollectionSearch extends RerankParams {
  readonly project: string
  readonly collection: string
  readonly query: string
  readonly top_k: number
  readonly retrieval_type: RetrievalType
  readonly legs?: Legs
  readonly expr?: string
  readonly tags?: readonly string[]
  readonly source_names?: readonly string[]
  /** `document` retrieval: the most tokens of each document returned. */
  readonly token_budget?: number
  readonly output_fields?: readonly string[]
  readonly advanced_rag?: boolean | 'true' | 'false'
  /** How the legs are fused; unset fields from the collection's and deployment's settings (search-settings.ts). */
  readonly fusion?: FusionSetting
}

/** A route's limits on searches (plugin options). */
export interface SearchLimits {
  readonly maxTopK: number
  readonly neighborWindow: number
  readonly variants: number
  readonly variantsModel: string
  readonly rerankCandidates: number
}

export interface SearchContext {
  readonly knowledge: KnowledgeBase
  readonly call: RouteCall
  /** The gateway routes it calls (server.yaml `query.routes`). */
  readonly routes: QueryRoutes
  readonly modelOf: (id: string) => ModelConfig | undefined
  /** Whose budget and records carry the embeddings, variants and rerank calls. */
  readonly principal: Principal
  readonly signal?: AbortSignal
  readonly parentId?: string
}

/** One result: a chunk, a document, or a hit with its neighbours. */
export interface Passage {
  readonly sourceName: string
  readonly score: number
  readonly rerankScore?: number
  /** The text a prompt quotes: the chunk, or the chunks of a document or a neighbourhood in order. */
  readonly text: string
  readonly chunks: readonly StoredChunk[]
  /** The result as the search route returns it, shaped by `output_fields`. */
  readonly view: ChunkView
}

export interface SearchOutcome {
  readonly retrievalType: RetrievalType
  readonly legs: Legs
  /** The fusion a hybrid search used, every field resolved. */
  readonly fusion?: Fusion
  readonly variants: readonly string[]
  readonly rerankerModel?: string
  readonly passages: readonly Passage[]
  /** The shape of a chunk for `output_fields`. */
  readonly shape: ChunkShape
}

const bad = (message: string) => new GatewayError(400, message, { code: 'invalid_request' })

/** The request's filters as one compiled condition; a bad expression is a 400 with its position. */
export function requestFilter(body: Pick<CollectionSearch, 'expr' | 'tags' | 'source_names'>): {
  filter: CompiledFilter | undefined
  metadataKeys: { key: string; at: number }[]
} {
  const parts: CompiledFilter[] = []
  let metadataKeys: { key: string; at: number }[] = []
  if (body.expr !== undefined && body.expr.trim() !== '') {
    try {
      const node = checkFilter(parseFilter(body.expr))
      metadataKeys = metadataKeysOf(node)
      parts.push(compileFilter(node))
    } catch (err) {
      if (err instanceof FilterError) throw bad(err.message)
      throw err
    }
  }
  if (body.tags?.length) parts.push(tagsFilter([...body.tags]))
  if (body.source_names?.length) parts.push(sourceNamesFilter([...body.source_names]))
  return { filter: parts.length ? andFilters(...parts) : undefined, metadataKeys }
}

/**
 * A name in `expr` that is neither a fixed field nor a metadata key of any document of the
 * collection is a 400 naming it and the known fields: a misspelt field would otherwise match
 * nothing, silently.
 */
function checkFilterFields(named: readonly { key: string; at: number }[], keys: ReadonlySet<string>): void {
  const unknown = named.find((n) => !keys.has(n.key))
  if (!unknown) return
  const custom = [...keys].sort()
  throw bad(
    `expr names an unknown field ${JSON.stringify(unknown.key)} at character ${unknown.at}; the fields are ${FIXED_FIELDS.join(', ')}${custom.length ? ` and the collection's metadata keys ${custom.join(', ')}` : ' (the collection has no metadata keys)'}`,
  )
}

/**
 * Runs the search. Checks come first (top_k, the filter, the rerank trio, the collection,
 * output_fields), so a bad request costs no model call.
 */
export async function searchCollection(
  s: CollectionSearch,
  limits: SearchLimits,
  ctx: SearchContext,
): Promise<SearchOutcome> {
  if (s.top_k > limits.maxTopK) throw bad(`top_k ${s.top_k} is over this route's limit of ${limits.maxTopK}`)
  const { filter, metadataKeys } = requestFilter(s)
  const asked = rerankPlan(s, ctx.modelOf)
  // Without top_n, reranking keeps top_k.
  const plan = asked && { ...asked, topN: asked.topN ?? s.top_k }
  const kb = ctx.knowledge
  const collection = await kb.getCollection(s.project, s.collection)
  const { legs, fusion } = searchSettings(kb.settings.retrieval, s.project, collection.name, s)
  let known: Promise<Set<string>> | undefined
  const metadataKeysOfCollection = () =>
    (known ??= kb.store
      .listDocuments(s.project, collection.name)
      .then((docs) => new Set(docs.flatMap((d) => Object.keys(d.metadata)))))
  if (metadataKeys.length) checkFilterFields(metadataKeys, await metadataKeysOfCollection())
  const shape = await shapeFor(s.output_fields, metadataKeysOfCollection)
  const options = { principal: ctx.principal, signal: ctx.signal, parentId: ctx.parentId }
  const variants = truthy(s.advanced_rag)
    ? await queryVariants(ctx.call, ctx.routes.chat, limits.variantsModel, s.query, limits.variants, options)
    : []
  let embeddings: Float32Array[] = []
  if (legs !== 'lexical') {
    const embed = embedThroughRoute(
      ctx.call,
      ctx.routes.embeddings,
      ctx.principal,
      {
        signal: ctx.signal,
        parentId: ctx.parentId,
      },
      (model) => ctx.modelOf(model)?.context_window,
    )
    embeddings = await kb.embedAll(kb.modelOf(collection), [s.query, ...variants], embed)
  }
  const lexical = legs !== 'vector'
  const req: SearchRequest = {
    project: s.project,
    collection: collection.name,
    // With rerank, more candidates than top_k go to the reranker; top_n cuts after it.
    topK: plan ? Math.max(s.top_k, Math.min(limits.rerankCandidates, limits.maxTopK)) : s.top_k,
    query: lexical ? s.query : undefined,
    embedding: embeddings[0],
    filter,
    fusion,
    variants: variants.map((v, i) => ({ query: lexical ? v : undefined, embedding: embeddings[i + 1] })),
  }
  const reranked = <T extends object>(
    items: T[],
    textOf: (item: T) => string,
  ): Promise<(T & { rerank_score?: number })[]> =>
    plan ? rerankItems(ctx.call, ctx.routes.rerank, plan, s.query, items, textOf, options) : Promise.resolve(items)
  let passages: Passage[]
  if (s.retrieval_type === 'chunk') {
    const chunks = await reranked(await retrieveChunks(kb.store, req), (c) => c.content)
    passages = chunks.map((c) => ({
      sourceName: c.sourceName,
      score: c.score ?? 0,
      rerankScore: c.rerank_score,
      text: c.content,
      chunks: [c],
      view: shape(c),
    }))
  } else if (s.retrieval_type === 'document') {
    const docs = await reranked(await retrieveDocuments(kb.store, req, s.token_budget), (d) => joined(d.chunks))
    passages = docs.map((d) => grouped(d, shape, { truncated: d.truncated }))
  } else {
    const found = await reranked(await retrieveNeighbors(kb.store, req, limits.neighborWindow), (p) => joined(p.chunks))
    passages = found.map((p) =>
      grouped(p, shape, { hits: p.chunks.filter((c) => p.hits.includes(c.id)).map((c) => c.index) }),
    )
  }
  return {
    retrievalType: s.retrieval_type,
    legs,
    ...(legs === 'hybrid' ? { fusion } : {}),
    variants,
    rerankerModel: plan?.model,
    passages,
    shape,
  }
}

const joined = (chunks: readonly StoredChunk[]): string => chunks.map((c) => c.content).join('\n')

/**
 * A document or a neighbourhood as one passage; `extra` is what its view adds (`truncated`,
 * `hits`). Its view has the same shape as a chunk's: the fields `output_fields` asks for at the
 * top (`content` is the passage's text, `page_number` its first chunk's; the document's fields
 * are its own), then what places it (`score`, `rerank_score`), then the details beside:
 * `extra` and its `chunks`, each shaped as in chunk retrieval.
 */
function grouped(
  g: { sourceName: string; score: number; rerank_score?: number; chunks: readonly StoredChunk[] },
  shape: ChunkShape,
  extra: Record<string, unknown>,
): Passage {
  const text = joined(g.chunks)
  const first = g.chunks[0]
  const {
    index: _index,
    heading_path: _path,
    score: _score,
    rerank_score: _rerank,
    ...top
  } = first ? shape({ ...first, content: text }) : { source_name: g.sourceName }
  return {
    sourceName: g.sourceName,
    score: g.score,
    rerankScore: g.rerank_score,
    text,
    chunks: g.chunks,
    view: {
      ...top,
      source_name: g.sourceName,
      score: g.score,
      ...rerankScore(g.rerank_score),
      ...extra,
      chunks: g.chunks.map(shape),
    },
  }
}

function rerankScore(s: number | undefined): { rerank_score?: number } {
  return s === undefined ? {} : { rerank_score: s }
}

/** The chunk shape of `output_fields`; the collection's metadata keys are read only when a custom field is named. */
async function shapeFor(
  fields: readonly string[] | undefined,
  metadataKeys: () => Promise<ReadonlySet<string>>,
): Promise<ChunkShape> {
  if (!customFields(fields).length) return chunkShape(fields)
  return chunkShape(fields, await metadataKeys())
}
