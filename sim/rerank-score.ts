/**
 * How the simulated reranker scores a (query, document) pair: a cross-encoder's job done by
 * term overlap, so that the scores mean something (the document about the query comes first)
 * while staying deterministic and explainable. Each pair is scored alone, as a cross-encoder
 * does; other documents of the request never change a document's score.
 *
 * 1. Terms: lower-cased runs of letters and digits; a plural `s` is dropped (`cats` → `cat`,
 *    not `glass`), and common English function words count a tenth.
 * 2. Each distinct query term found in the document adds its weight times BM25's saturated
 *    term frequency (k1 = 1.2, b = 0.75, documents of 64 terms on average): one occurrence
 *    in a document of average length counts 1, more count up to 2.2, long documents less.
 * 3. The sum over the query's weight is the coverage c (0: nothing in common; 1: every
 *    query term once); the score is the logistic 1 / (1 + e^(-8 (c - 0.5))), in (0, 1):
 *    about 0.018 with nothing in common, 0.5 at half the query, 0.98 at all of it.
 */

const K1 = 1.2
const B = 0.75
const AVERAGE_TERMS = 64
const STOPWORD_WEIGHT = 0.1
const STEEPNESS = 8

const STOPWORDS = new Set(
  'a an and are as at be by for from has have how in is it its of on or that the this to was were what when where which who why will with do does can i you'.split(
    ' ',
  ),
)

export function terms(text: string): string[] {
  const out: string[] = []
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = match[0]
    out.push(word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word)
  }
  return out
}

/** The relevance of `document` to `query`, in (0, 1). */
export function relevance(query: string, document: string): number {
  const docTerms = terms(document)
  const counts = new Map<string, number>()
  for (const t of docTerms) counts.set(t, (counts.get(t) ?? 0) + 1)
  const lengthNorm = 1 - B + (B * docTerms.length) / AVERAGE_TERMS
  let matched = 0
  let total = 0
  for (const t of new Set(terms(query))) {
    const weight = STOPWORDS.has(t) ? STOPWORD_WEIGHT : 1
    total += weight
    const tf = counts.get(t) ?? 0
    matched += (weight * (tf * (K1 + 1))) / (tf + K1 * lengthNorm)
  }
  const coverage = total === 0 ? 0 : matched / total
  return 1 / (1 + Math.exp(-STEEPNESS * (coverage - 0.5)))
}

/** TEI's `raw_scores: true`: the logit the score is the sigmoid of. */
export function rawScore(score: number): number {
  return Math.log(score / (1 - score))
}
