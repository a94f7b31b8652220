/**
 * vLLM's score wire (`POST /score`): `{model, text_1, text_2}` in (one query against a list of
 * documents), `{data:[{index, object:"score", score}], usage:{total_tokens}}` out, in document
 * order. The server does not sort or cut: ranking and `top_n` are the gateway's.
 */
import { objectOf, readScoreList, type ReadScores, type RerankAsk } from './ranking.js'

export function vllmScoreRequest(ask: RerankAsk, model: string): Record<string, unknown> {
  return { model, text_1: ask.query, text_2: ask.documents }
}

export function vllmScoreScores(reply: unknown, count: number): ReadScores {
  const body = objectOf(reply)
  // A score per document is what the gateway ranks; fewer would drop documents silently.
  return readScoreList(body?.data, count, {
    scoreField: 'score',
    what: 'score',
    missing: 'no data',
    complete: true,
    usage: body?.usage,
  })
}
