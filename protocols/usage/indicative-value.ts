/**
 * The indicative value of tokens: a model's `prices` (per million tokens, models.yaml) times
 * what was used. No charge is made; budgets, records and the usage report all use this one
 * rule, so they agree.
 */

export interface Prices {
  readonly prompt?: number
  readonly completion?: number
}

/** The usage a model server reports (OpenAI's shape), as far as the gateway reads it. */
export interface ReportedUsage {
  readonly prompt_tokens?: number
  readonly completion_tokens?: number
  readonly prompt_tokens_details?: { readonly cached_tokens?: number } | null
}

export interface TokenFigures {
  readonly promptTokens: number
  readonly completionTokens: number
  readonly cachedTokens: number
}

export function perToken(prices: Prices | undefined): { prompt: number; completion: number } {
  return { prompt: (prices?.prompt ?? 0) / 1e6, completion: (prices?.completion ?? 0) / 1e6 }
}

export function indicativeValue(prices: Prices | undefined, figures: { promptTokens: number; completionTokens: number }): number {
  const p = perToken(prices)
  return figures.promptTokens * p.prompt + figures.completionTokens * p.completion
}

export function figuresOf(usage: ReportedUsage): TokenFigures {
  return {
    promptTokens: usage.prompt_tokens ?? 0,
    completionTokens: usage.completion_tokens ?? 0,
    cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
  }
}
