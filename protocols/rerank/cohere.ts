/**
 * The Cohere-compatible rerank wire (`POST /v2/rerank`; vLLM and Infinity answer it at
 * `/v1/rerank` too, Jina at `/v1/rerank`): `{model, query, documents, top_n?}` in,
 * `{results:[{index, relevance_score}], usage?:{total_tokens}}` out. Cohere itself bills
 * search units, not tokens, so its replies carry no token count.
 */
import { objectOf, readScoreList, type ReadScores, type RerankAsk } from './ranking.js'

export function cohereRequest(ask: RerankAsk, model: string): Record<string, unknown> {
  const body: Record<string, unknown> = { model, query: ask.query, documents: ask.documents }
  // The server keeps the best itself: fewer results to send back.
  if (ask.topN !== undefined) body.top_n = ask.topN
  return body
}

export function cohereScores(reply: unknown, count: number): ReadScores {
  const body = objectOf(reply)
  return readScoreList(body?.results, count, {
    scoreField: 'relevance_score',
    what: 'result',
    missing: 'no results',
    complete: false,
    usage: body?.usage,
  })
}
