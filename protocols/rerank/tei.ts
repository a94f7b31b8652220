/**
 * Text Embeddings Inference's rerank wire (`POST /rerank`): `{query, texts, raw_scores}` in, a
 * bare array `[{index, score}]` out. TEI serves one model (no `model` field) and reports no
 * token count. `raw_scores: false` asks for the sigmoid of the logit, a score in (0, 1) like
 * the other servers'.
 */
import { readScoreList, type ReadScores, type RerankAsk } from './ranking.js'

export function teiRequest(ask: RerankAsk): Record<string, unknown> {
  return { query: ask.query, texts: ask.documents, raw_scores: false, return_text: false }
}

export function teiScores(reply: unknown, count: number): ReadScores {
  return readScoreList(reply, count, {
    scoreField: 'score',
    what: 'score',
    missing: 'not an array of scores',
    complete: true,
  })
}
