/**
 * Retrieval over any KnowledgeStore: the legs (lexical, vector, or both fused as fusion.ts
 * says) and the three retrieval types. Pure over the store: no SQL here.
 *
 * Each leg fetches top_k × 4 when both run, so that a chunk ranked modestly by both legs can
 * still win.
 */
import type { CompiledFilter } from './model.js'
import { fuseLegs, fuseRrf, resolveFusion, type FusionOptions } from './fusion.js'
import type { KnowledgeStore, ScoredChunk, StoredChunk } from './store.js'

export { DEFAULT_FUSION, type FusionOptions } from './fusion.js'
/** Weighted RRF over any lists (fusion.ts). */
export const fuse = fuseRrf

export interface SearchRequest {
  readonly project: string
  readonly collection: string
  readonly topK: number
  /** Text for the lexical leg; absent means no lexical leg. */
  readonly query?: string
  /** Embedding of the query for the vector leg; absent means no vector leg. */
  readonly embedding?: Float32Array
  readonly filter?: CompiledFilter
  /** Unset fields take DEFAULT_FUSION's. */
  readonly fusion?: FusionOptions
  /**
   * Other phrasings of the query (advanced_rag), each with its own text and embedding for the
   * legs asked for: each is searched like the query, and their new hits go below the query's
   * own (withVariants).
   */
  readonly variants?: readonly { readonly query?: string; readonly embedding?: Float32Array }[]
}

/**
 * The ranked hits of the legs asked for: one leg as it ranks, two legs fused. With variants,
 * the query and each variant are searched alike and merged by withVariants.
 */
export async function search(store: KnowledgeStore, req: SearchRequest, fetch = req.topK): Promise<ScoredChunk[]> {
  if (req.variants?.length) {
    const { variants, ...one } = req
    const [original, ...others] = await Promise.all(
      [one, ...variants.map((v) => ({ ...one, query: v.query, embedding: v.embedding }))].map((r) =>
        searchOne(store, r, fetch),
      ),
    )
    return withVariants(original!, others, fetch)
  }
  return searchOne(store, req, fetch)
}

/**
 * `advanced_rag`'s merge: the variants add, they do not displace. The original query's list
 * keeps its first half (rounded up) exactly in place; below it, the rest of the original's
 * hits keep their order and alternate with the hits only the variants found (those ranked by
 * RRF over the variants' lists), an original hit first. So a variant can never outrank the
 * original's head, nor reorder the original's hits; at most fetch/2 of the original's tail
 * make room. Scores: each hit keeps the one it had in its own list.
 */
export function withVariants(
  original: readonly ScoredChunk[],
  variants: readonly (readonly ScoredChunk[])[],
  fetch: number,
): ScoredChunk[] {
  const own = new Set(original.map((h) => h.id))
  const added = fuseRrf(variants.map((hits) => ({ hits, weight: 1 }))).filter((h) => !own.has(h.id))
  const head = Math.ceil(fetch / 2)
  const out = original.slice(0, head)
  const tail = original.slice(head)
  for (let i = 0; out.length < fetch && (i < tail.length || i < added.length); i++) {
    if (i < tail.length) out.push(tail[i]!)
    if (i < added.length && out.length < fetch) out.push(added[i]!)
  }
  return out
}

async function searchOne(store: KnowledgeStore, req: SearchRequest, fetch: number): Promise<ScoredChunk[]> {
  const hybrid = req.query !== undefined && req.embedding !== undefined
  const each = hybrid ? fetch * 4 : fetch
  const [lexical, vector] = await Promise.all([
    req.query !== undefined ? store.lexical(req.project, req.collection, req.query, each, req.filter) : undefined,
    req.embedding !== undefined
      ? store.vector(req.project, req.collection, req.embedding, each, req.filter)
      : undefined,
  ])
  if (lexical && vector) return fuseLegs(lexical, vector, resolveFusion(req.fusion)).slice(0, fetch)
  return (lexical ?? vector ?? []).slice(0, fetch)
}

/** `chunk`: the best top_k chunks. */
export async function retrieveChunks(store: KnowledgeStore, req: SearchRequest): Promise<ScoredChunk[]> {
  return search(store, req)
}

export interface RetrievedDocument {
  readonly documentId: number
  readonly sourceName: string
  /** The best score among the document's hits. */
  readonly score: number
  /** The document's chunks in order: all of them, or the first ones within the token budget. */
  readonly chunks: readonly StoredChunk[]
  readonly truncated: boolean
}

/**
 * `document`: hits grouped by document, documents ranked by their best chunk, each returned
 * whole, or cut at `tokenBudget` tokens (shared by all documents, best document first).
 */
export async function retrieveDocuments(
  store: KnowledgeStore,
  req: SearchRequest,
  tokenBudget?: number,
): Promise<RetrievedDocument[]> {
  // More hits than documents wanted, so that top_k distinct documents can be found.
  const hits = await search(store, req, req.topK * 4)
  const best = new Map<number, ScoredChunk>()
  for (const h of hits) if (!best.has(h.documentId)) best.set(h.documentId, h)
  const ranked = [...best.values()].slice(0, req.topK)
  const chunks = await store.documentChunks(
    req.project,
    req.collection,
    ranked.map((h) => h.documentId),
  )
  let left = tokenBudget ?? Infinity
  return ranked.map((h) => {
    const all = chunks.filter((c) => c.documentId === h.documentId)
    const kept: StoredChunk[] = []
    for (const c of all) {
      if (c.tokens > left) break
      kept.push(c)
      left -= c.tokens
    }
    return {
      documentId: h.documentId,
      sourceName: h.sourceName,
      score: h.score,
      chunks: kept,
      truncated: kept.length < all.length,
    }
  })
}

export interface Passage {
  readonly documentId: number
  readonly sourceName: string
  /** The best hit's score: neighbours add text, never rank. */
  readonly score: number
  /** Ids of the hits inside the passage. */
  readonly hits: readonly number[]
  /** Consecutive chunks of one document, in order, each once. */
  readonly chunks: readonly StoredChunk[]
}

/**
 * `neighbor`: each hit with ±`window` chunks of its document. Overlapping or touching windows
 * of one document merge into one passage, so no chunk is returned twice; a passage ranks by its
 * best hit, so a neighbour never outranks the hit it came with.
 */
export async function retrieveNeighbors(store: KnowledgeStore, req: SearchRequest, window: number): Promise<Passage[]> {
  const hits = await search(store, req)
  const around = await store.neighbors(
    req.project,
    req.collection,
    hits.map((h) => h.id),
    window,
  )
  const scoreOf = new Map(hits.map((h) => [h.id, h.score]))
  const passages: { documentId: number; sourceName: string; score: number; hits: number[]; chunks: StoredChunk[] }[] =
    []
  let current: (typeof passages)[number] | undefined
  // `around` comes in document order: a passage runs while indexes stay consecutive.
  for (const c of around) {
    const last = current?.chunks[current.chunks.length - 1]
    if (!current || !last || last.documentId !== c.documentId || c.index !== last.index + 1) {
      current = { documentId: c.documentId, sourceName: c.sourceName, score: -Infinity, hits: [], chunks: [] }
      passages.push(current)
    }
    current.chunks.push(c)
    const s = scoreOf.get(c.id)
    if (s !== undefined) {
      current.hits.push(c.id)
      current.score = Math.max(current.score, s)
    }
  }
  return passages.sort((a, b) => b.score - a.score)
}
