/**
 * Which wire a rerank model's server speaks, by the model's `rerank_api`: where to send the
 * request, how to write it, and how to read the scores back. The translations themselves are
 * pure adapters in protocols/rerank/.
 */
import type { ModelConfig } from '../../schemas/models.schema.js'
import type { ReadScores, RerankAsk } from '../../protocols/rerank/ranking.js'
import { cohereRequest, cohereScores } from '../../protocols/rerank/cohere.js'
import { teiRequest, teiScores } from '../../protocols/rerank/tei.js'
import { vllmScoreRequest, vllmScoreScores } from '../../protocols/rerank/vllm-score.js'

export interface RerankApi {
  /** The API's usual path below the backend's URL. */
  readonly path: string
  request(ask: RerankAsk, servedName: string): Record<string, unknown>
  read(reply: unknown, count: number): ReadScores
}

const apis: Readonly<Record<NonNullable<ModelConfig['rerank_api']>, RerankApi>> = {
  cohere: { path: '/v2/rerank', request: cohereRequest, read: cohereScores },
  tei: { path: '/rerank', request: (ask) => teiRequest(ask), read: teiScores },
  'vllm-score': { path: '/score', request: vllmScoreRequest, read: vllmScoreScores },
}

export function rerankApiOf(model: ModelConfig): { api: RerankApi; path: string } {
  const api = apis[model.rerank_api ?? 'cohere']
  return { api, path: model.rerank_path ?? api.path }
}
