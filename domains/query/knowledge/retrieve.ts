/**
 * Retrieval over any KnowledgeStore: the legs (lexical, vector, or both fused by reciprocal
 * rank fusion) and the three retrieval types. Pure over the store: no SQL here.
 *
 * RRF fuses by rank position, not score, which sidesteps the legs' incomparable scales (bm25,
 * ts_rank_cd, cosine): score = Σ weight / (k + rank), rank from 1, k = 60 (Cormack et al.).
 * Each leg fetches top_k × 4 so that a chunk ranked modestly by both legs can still win.
 *
 * Default weights lexical 2 / vector 1: with the windowed vector leg, the one setting measured to
 * beat both legs on SQLite and PostgreSQL (docs/performance.md, "Retrieval quality"); the
 * lexical leg is the stronger of the two there, and equal weights let the weaker drag it down.
 */
import type { CompiledFilter } from './model.js'
import { fuseScores } from './fuse-scores.js'
import type { KnowledgeStore, ScoredChunk, StoredChunk } from './store.js'

export interface FusionOptions {
  /**
   * `rrf` (default): reciprocal rank fusion. `score`: each leg's scores scaled to [0, 1] over
   * the list it returned (min-max) and summed with the weights (fuse-scores.ts).
   */
  readonly method?: 'rrf' | 'score'
  /** The rank constant of RRF; 60 by default. */
  readonly k?: number
  /** 2 by default (DEFAULT_FUSION). */
  readonly lexicalWeight?: number
  /** 1 by default. */
  readonly vectorWeight?: number
}

export const DEFAULT_FUSION = { method: 'rrf', k: 60, lexicalWeight: 2, vectorWeight: 1 } as const

export interface SearchRequest {
  readonly project: string
  readonly collection: string
  readonly topK: number
  /** Text for the lexical leg; absent means no lexical leg. */
  readonly query?: string
  /** Embedding of the query for the vector leg; absent means no vector leg. */
  readonly embedding?: Float32Array
  readonly filter?: CompiledFilter
  readonly fusion?: FusionOptions
  /**
   * Other phrasings of the query (advanced_rag), each with its own text and embedding for the
   * legs asked for: each is searched like the query and all the lists are fused by RRF.
   */
  readonly variants?: readonly { readonly query?: string; readonly embedding?: Float32Array }[]
}

/** Each leg's ranked list in, one fused list out (best first), scored by weighted RRF. */
export function fuse(legs: readonly { hits: readonly ScoredChunk[]; weight: number }[], k = 60): ScoredChunk[] {
  const fused = new Map<number, { chunk: ScoredChunk; score: number }>()
  for (const leg of legs) {
    leg.hits.forEach((hit, i) => {
      const add = leg.weight / (k + i + 1)
      const seen = fused.get(hit.id)
      if (seen) seen.score += add
      else fused.set(hit.id, { chunk: hit, score: add })
    })
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.chunk.id - b.chunk.id)
    .map((f) => ({ ...f.chunk, score: f.score }))
}

/**
 * The ranked hits of the legs asked for: one leg as it ranks, two legs fused. With variants,
 * the query and each variant are searched alike and their lists fused (equal weights).
 */
export async function search(store: KnowledgeStore, req: SearchRequest, fetch = req.topK): Promise<ScoredChunk[]> {
  if (req.variants?.length) {
    const { variants, ...one } = req
    const lists = await Promise.all(
      [one, ...variants.map((v) => ({ ...one, query: v.query, embedding: v.embedding }))].map((r) =>
        searchOne(store, r, fetch * 2),
      ),
    )
    return fuse(
      lists.map((hits) => ({ hits, weight: 1 })),
      req.fusion?.k ?? 60,
    ).slice(0, fetch)
  }
  return searchOne(store, req, fetch)
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
  if (lexical && vector) {
    const f = req.fusion ?? {}
    const legs = [
      { hits: lexical, weight: f.lexicalWeight ?? DEFAULT_FUSION.lexicalWeight },
      { hits: vector, weight: f.vectorWeight ?? DEFAULT_FUSION.vectorWeight },
    ]
    return (f.method === 'score' ? fuseScores(legs) : fuse(legs, f.k ?? DEFAULT_FUSION.k)).slice(0, fetch)
  }
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
