/**
 * How the two legs' ranked lists become one: reciprocal rank fusion or convex (normalised-score)
 * fusion, each with per-leg weights, and the vector weight scaled by how much the legs agree.
 *
 * - `rrf`: score = Σ weight / (k + rank), rank from 1 (Cormack et al.). By rank only, which
 *   sidesteps the legs' incomparable scales (bm25, ts_rank_cd, cosine), but it also flattens
 *   them: lexical ranks 1 and 2 score nearly alike however far apart their bm25 is.
 * - `convex`: each leg's scores scaled to [0, 1] over the list it returned (min-max: best → 1,
 *   worst → 0; one hit, or equal scores, → 1) and summed with the weights, a leg that did not
 *   return a chunk adding 0 (Weaviate's relativeScoreFusion). Keeps how far ahead a hit is.
 * - Agreement (`adaptive`, on by default): the vector weight is multiplied by the share of the
 *   first half of the vector leg's list (its first 2 × top_k hits) that the lexical leg also
 *   returned. Why: a vector leg that agrees with nothing the lexical leg found (a weak encoder
 *   on a technical corpus, issue 28) only adds points to chunks that are mediocre in both legs,
 *   and under RRF a chunk at rank 20 of both lists outscores the lexical leg's first hit; scaled
 *   by its agreement it adds little where it knows little, and keeps its full weight where it
 *   finds what the lexical leg finds. Measured (docs/performance.md, "Fusion"): with the real
 *   vector leg it lifts SQLite's hybrid and keeps PostgreSQL's above its lexical leg; with a
 *   vector leg that adds nothing (each question given another question's vector hits), plain
 *   RRF 2/1 falls 0.07-0.09 nDCG@10 below the lexical leg and the adaptive one stays level
 *   with it (within 0.008).
 */
import type { ScoredChunk } from './store.js'

export type FusionMethod = 'rrf' | 'convex'

/** A fusion setting as a request, a collection or the deployment gives it: each field optional. */
export interface FusionOptions {
  /** `score` is the older name of `convex` (the bench's `--fusion score`). */
  readonly method?: FusionMethod | 'score'
  /** The rank constant of RRF (ignored by convex). */
  readonly k?: number
  readonly lexicalWeight?: number
  readonly vectorWeight?: number
  /** Scale the vector weight by the legs' agreement. */
  readonly adaptive?: boolean
}

export interface Fusion {
  readonly method: FusionMethod
  readonly k: number
  readonly lexicalWeight: number
  readonly vectorWeight: number
  readonly adaptive: boolean
}

/** Chosen on the tuning set (docs/performance.md, "Fusion"; docs/decisions.md). */
export const DEFAULT_FUSION: Fusion = { method: 'rrf', k: 60, lexicalWeight: 2, vectorWeight: 1, adaptive: true }

/** The settings in order of precedence, most specific first; each field from the first that sets it. */
export function resolveFusion(...layers: readonly (FusionOptions | undefined)[]): Fusion {
  const pick = <K extends keyof FusionOptions>(key: K): FusionOptions[K] =>
    layers.find((l) => l?.[key] !== undefined)?.[key]
  const method = pick('method') ?? DEFAULT_FUSION.method
  return {
    method: method === 'score' ? 'convex' : method,
    k: pick('k') ?? DEFAULT_FUSION.k,
    lexicalWeight: pick('lexicalWeight') ?? DEFAULT_FUSION.lexicalWeight,
    vectorWeight: pick('vectorWeight') ?? DEFAULT_FUSION.vectorWeight,
    adaptive: pick('adaptive') ?? DEFAULT_FUSION.adaptive,
  }
}

type Leg = { readonly hits: readonly ScoredChunk[]; readonly weight: number }

/** Each leg's ranked list in, one fused list out (best first), scored by weighted RRF. */
export function fuseRrf(legs: readonly Leg[], k = DEFAULT_FUSION.k): ScoredChunk[] {
  return ranked(legs, (leg) => leg.hits.map((_, i) => leg.weight / (k + i + 1)))
}

/** Each leg's scores min-max scaled over its own list, weighted and summed. */
export function fuseConvex(legs: readonly Leg[]): ScoredChunk[] {
  return ranked(legs, (leg) => {
    const scores = leg.hits.map((h) => h.score)
    const hi = Math.max(...scores)
    const lo = Math.min(...scores)
    return scores.map((s) => leg.weight * (hi > lo ? (s - lo) / (hi - lo) : 1))
  })
}

function ranked(legs: readonly Leg[], points: (leg: Leg) => number[]): ScoredChunk[] {
  const fused = new Map<number, { chunk: ScoredChunk; score: number }>()
  for (const leg of legs) {
    if (leg.hits.length === 0) continue
    const add = points(leg)
    leg.hits.forEach((hit, i) => {
      const seen = fused.get(hit.id)
      if (seen) seen.score += add[i]!
      else fused.set(hit.id, { chunk: hit, score: add[i]! })
    })
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.chunk.id - b.chunk.id)
    .map((f) => ({ ...f.chunk, score: f.score }))
}

/**
 * The share (0 to 1) of the first half of the vector leg's list (rounded up) that the lexical
 * leg returned too. Half: each leg fetches 4 × top_k, and the vector leg's deeper half is
 * mostly near-ties; measured against the first 10 (docs/performance.md, "Fusion").
 */
export function agreement(lexical: readonly ScoredChunk[], vector: readonly ScoredChunk[]): number {
  const head = vector.slice(0, Math.ceil(vector.length / 2))
  if (head.length === 0) return 0
  const found = new Set(lexical.map((h) => h.id))
  return head.filter((h) => found.has(h.id)).length / head.length
}

/** The two legs' lists fused as `fusion` says (an empty lexical list leaves the vector list as it is). */
export function fuseLegs(
  lexical: readonly ScoredChunk[],
  vector: readonly ScoredChunk[],
  fusion: Fusion,
): ScoredChunk[] {
  if (lexical.length === 0) return [...vector]
  const vectorWeight = fusion.adaptive ? fusion.vectorWeight * agreement(lexical, vector) : fusion.vectorWeight
  const legs = [
    { hits: lexical, weight: fusion.lexicalWeight },
    { hits: vector, weight: vectorWeight },
  ]
  return fusion.method === 'convex' ? fuseConvex(legs) : fuseRrf(legs, fusion.k)
}
