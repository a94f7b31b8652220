/**
 * The Cohere-compatible rerank wire (`POST /v2/rerank`; vLLM and Infinity answer it at
 * `/v1/rerank` too, Jina at `/v1/rerank`): `{model, query, documents, top_n?}` in,
 * `{results:[{index, relevance_score}], usage?:{total_tokens}}` out. Cohere itself bills
 * search units, not tokens, so its replies carry no token count.
 */
import { checkScores, objectOf, type ReadScores, type RerankAsk, type Scored } from './ranking.js'

export function cohereRequest(ask: RerankAsk, model: string): Record<string, unknown> {
  const body: Record<string, unknown> = { model, query: ask.query, documents: ask.documents }
  // The server keeps the best itself: fewer results to send back.
  if (ask.topN !== undefined) body.top_n = ask.topN
  return body
}

export function cohereScores(reply: unknown, count: number): ReadScores {
  const body = objectOf(reply)
  if (!body || !Array.isArray(body.results)) return { malformed: 'no results' }
  const scores: Scored[] = []
  for (const item of body.results) {
    const r = objectOf(item)
    if (!r) return { malformed: 'a result is not an object' }
    scores.push({ index: r.index as number, score: r.relevance_score as number })
  }
  const wrong = checkScores(scores, count)
  if (wrong) return { malformed: wrong }
  const usage = objectOf(body.usage)
  const tokens = typeof usage?.total_tokens === 'number' ? usage.total_tokens : undefined
  return tokens === undefined ? { scores } : { scores, tokens }
}
