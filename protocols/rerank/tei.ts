/**
 * Text Embeddings Inference's rerank wire (`POST /rerank`): `{query, texts, raw_scores}` in, a
 * bare array `[{index, score}]` out. TEI serves one model (no `model` field) and reports no
 * token count. `raw_scores: false` asks for the sigmoid of the logit, a score in (0, 1) like
 * the other servers'.
 */
import { checkScores, objectOf, type ReadScores, type RerankAsk, type Scored } from './ranking.js'

export function teiRequest(ask: RerankAsk): Record<string, unknown> {
  return { query: ask.query, texts: ask.documents, raw_scores: false, return_text: false }
}

export function teiScores(reply: unknown, count: number): ReadScores {
  if (!Array.isArray(reply)) return { malformed: 'not an array of scores' }
  const scores: Scored[] = []
  for (const item of reply) {
    const r = objectOf(item)
    if (!r) return { malformed: 'a score is not an object' }
    scores.push({ index: r.index as number, score: r.score as number })
  }
  const wrong = checkScores(scores, count)
  if (wrong) return { malformed: wrong }
  if (scores.length !== count) return { malformed: `${scores.length} scores for ${count} documents` }
  return { scores }
}
