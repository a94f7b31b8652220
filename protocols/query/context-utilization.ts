/**
 * Context utilization in the manner of RAGAS (its `ContextUtilization`, context precision
 * judged against the response instead of a reference): each retrieved context, in rank order,
 * is judged useful or not in arriving at the answer, and the score is the average precision
 * over the ranks of the useful ones:
 *
 *   score = Σ_k (precision@k · v_k) / Σ_k v_k      precision@k = (Σ_{i≤k} v_i) / k
 *
 * so useful contexts ranked first score higher than the same contexts ranked last. With no
 * useful context the score is 0 (RAGAS divides by Σ v_k + 1e-10, which gives 0 as well).
 */

/** Average precision of binary usefulness verdicts given in rank order (rank 1 first). */
export function averagePrecision(useful: readonly boolean[]): number {
  let hits = 0
  let sum = 0
  useful.forEach((v, i) => {
    if (!v) return
    hits += 1
    sum += hits / (i + 1)
  })
  return hits === 0 ? 0 : sum / hits
}
