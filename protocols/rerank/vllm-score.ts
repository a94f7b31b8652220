/**
 * vLLM's score wire (`POST /score`): `{model, text_1, text_2}` in (one query against a list of
 * documents), `{data:[{index, object:"score", score}], usage:{total_tokens}}` out, in document
 * order. The server does not sort or cut: ranking and `top_n` are the gateway's.
 */
import { checkScores, objectOf, type ReadScores, type RerankAsk, type Scored } from './ranking.js'

export function vllmScoreRequest(ask: RerankAsk, model: string): Record<string, unknown> {
  return { model, text_1: ask.query, text_2: ask.documents }
}

export function vllmScoreScores(reply: unknown, count: number): ReadScores {
  const body = objectOf(reply)
  if (!body || !Array.isArray(body.data)) return { malformed: 'no data' }
  const scores: Scored[] = []
  for (const item of body.data) {
    const r = objectOf(item)
    if (!r) return { malformed: 'a score is not an object' }
    scores.push({ index: r.index as number, score: r.score as number })
  }
  const wrong = checkScores(scores, count)
  if (wrong) return { malformed: wrong }
  // A score per document is what the gateway ranks; fewer would drop documents silently.
  if (scores.length !== count) return { malformed: `${scores.length} scores for ${count} documents` }
  const usage = objectOf(body.usage)
  const tokens = typeof usage?.total_tokens === 'number' ? usage.total_tokens : undefined
  return tokens === undefined ? { scores } : { scores, tokens }
}
