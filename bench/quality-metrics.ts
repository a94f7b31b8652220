/**
 * Ranking metrics with binary relevance, over ranked lists of ids: recall@k (share of the
 * relevant chunks found in the first k), MRR@k (1 / rank of the first relevant, 0 past k) and
 * nDCG@k (log2 discount, ideal = all relevant first). A quote can sit in two chunks when the
 * chunker's overlap repeats it, so a question may have more than one relevant chunk.
 */
export function recallAt(k: number, ranked: readonly number[], relevant: ReadonlySet<number>): number {
  if (relevant.size === 0) return 0
  return ranked.slice(0, k).filter((id) => relevant.has(id)).length / relevant.size
}

export function mrrAt(k: number, ranked: readonly number[], relevant: ReadonlySet<number>): number {
  const i = ranked.slice(0, k).findIndex((id) => relevant.has(id))
  return i < 0 ? 0 : 1 / (i + 1)
}

export function ndcgAt(k: number, ranked: readonly number[], relevant: ReadonlySet<number>): number {
  let dcg = 0
  ranked.slice(0, k).forEach((id, i) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(i + 2)
  })
  let ideal = 0
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2)
  return ideal === 0 ? 0 : dcg / ideal
}

export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0
}
