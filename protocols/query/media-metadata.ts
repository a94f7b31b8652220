/**
 * `response.metadata` of the media body types: the envelope's `sources` (always `{}`: no
 * search), `query_id` and `usage_metric` (the model call's tokens, all counted as `user_query`,
 * priced at the model's token prices), plus what tokens do not say: `model_provider` (`gateway`) and `model_name`, and `cost`,
 * the call's indicative value by the gateway's one rule (the usage record's `value`), which for
 * models priced by the character (speech) or the minute of audio (transcription) is where the
 * price shows.
 */
import type { QueryMetadata } from './response.js'
import { usageMetric, type TokenPrices } from './usage-metric.js'

export interface MediaCall {
  readonly queryId: string
  readonly modelId: string
  readonly used: { readonly inputTokens: number; readonly outputTokens: number }
  readonly prices: TokenPrices
  /** The indicative value of the call (kernel/services/catalog/prices.ts `valueOf`). */
  readonly cost: number
}

export function mediaMetadata(call: MediaCall, extra: Record<string, unknown>): QueryMetadata {
  return {
    sources: {},
    query_id: call.queryId,
    usage_metric: usageMetric({ user_query: call.used.inputTokens }, call.used, call.prices),
    model_provider: 'gateway',
    model_name: call.modelId,
    ...extra,
    cost: Math.round(call.cost * 1e12) / 1e12,
  }
}
