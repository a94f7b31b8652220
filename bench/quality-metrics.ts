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

/** One question as restricted mode's guard sees it: its signals, and whether the corpus answers it. */
export interface GuardPoint {
  readonly coverage: number
  /** A name of the question is in neither the passages nor the collection (refused at any threshold). */
  readonly nameMissing: boolean
  readonly answerable: boolean
}

/** What the guard does at a threshold: refuse below it, when no word is shared, or on a missing name (when `names`). */
export const refuses = (p: GuardPoint, threshold: number, names: boolean): boolean =>
  (names && p.nameMissing) || p.coverage === 0 || p.coverage < threshold

export function refusals(
  points: readonly GuardPoint[],
  threshold: number,
  names: boolean,
): { unanswerable: string; answerable: string } {
  const count = (answerable: boolean) => {
    const of = points.filter((p) => p.answerable === answerable)
    return `${of.filter((p) => refuses(p, threshold, names)).length}/${of.length}`
  }
  return { unanswerable: count(false), answerable: count(true) }
}

/**
 * Calibration: the highest coverage threshold that, with what the name check already refuses,
 * refuses at most `maxShare` of the answerable questions; rounded down to 0.05 so that the
 * figure is not fitted to one question's value.
 */
export function calibrate(points: readonly GuardPoint[], names: boolean, maxShare = 0.02): number {
  const answerable = points.filter((p) => p.answerable)
  const left = Math.floor(maxShare * answerable.length) - answerable.filter((p) => names && p.nameMissing).length
  if (left < 0) return 0
  const open = answerable
    .filter((p) => !(names && p.nameMissing))
    .map((p) => p.coverage)
    .sort((a, b) => a - b)
  const edge = open[left] ?? 1
  return Math.floor(edge * 20 + 1e-9) / 20
}
