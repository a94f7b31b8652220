/**
 * Score fusion, the alternative to RRF: each leg's scores are scaled to [0, 1] over the list
 * that leg returned (best → 1, worst → 0; a list of one, or of equal scores, → 1) and a chunk's
 * fused score is Σ weight × scaled score, a leg that did not return it adding 0. This is
 * Weaviate's "relativeScoreFusion". Unlike RRF it keeps how far apart a leg's hits are: a
 * lexical hit far ahead of the next stays far ahead, where RRF makes ranks 1 and 2 nearly equal.
 */
import type { ScoredChunk } from './store.js'

export function fuseScores(legs: readonly { hits: readonly ScoredChunk[]; weight: number }[]): ScoredChunk[] {
  const fused = new Map<number, { chunk: ScoredChunk; score: number }>()
  for (const leg of legs) {
    if (leg.hits.length === 0) continue
    const scores = leg.hits.map((h) => h.score)
    const hi = Math.max(...scores)
    const lo = Math.min(...scores)
    for (const hit of leg.hits) {
      const add = leg.weight * (hi > lo ? (hit.score - lo) / (hi - lo) : 1)
      const seen = fused.get(hit.id)
      if (seen) seen.score += add
      else fused.set(hit.id, { chunk: hit, score: add })
    }
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.chunk.id - b.chunk.id)
    .map((f) => ({ ...f.chunk, score: f.score }))
}
