/**
 * The OpenAI wire's usage in the gateway's terms: a server's `usage` object as a report, and a
 * chat or completions body as a demand (what it may cost before it runs; embeddings:
 * `embeddings.ts`).
 */
import type { Demand, ReportedUsage } from '../../kernel/contract/index.js'
import { estimatePromptTokens, requestedCompletion, type PromptEstimateOptions } from './token-estimate.js'

/** The usage a model server reports (OpenAI's shape), as far as the gateway reads it. */
export interface OpenAIUsage {
  readonly prompt_tokens?: number
  readonly completion_tokens?: number
  readonly total_tokens?: number
  readonly prompt_tokens_details?: { readonly cached_tokens?: number } | null
}

export function reportedUsage(usage: OpenAIUsage): ReportedUsage {
  return {
    inputTokens: usage.prompt_tokens ?? 0,
    outputTokens: usage.completion_tokens ?? 0,
    cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
  }
}

type Body = { max_tokens?: number | null; max_completion_tokens?: number | null }

/**
 * What a chat or completions request may cost: its prompt, estimated from above, and its reply
 * length (`max_tokens` or `max_completion_tokens` per choice, times `n`), which a budget may lower.
 */
export function chatDemand(body: unknown, estimate: PromptEstimateOptions): Demand {
  const asked = requestedCompletion(body)
  return {
    inputTokens: estimatePromptTokens(body, estimate),
    outputTokens: asked.perChoice === undefined ? undefined : asked.perChoice * asked.choices,
    choices: asked.choices,
    adjustable: true,
    limitOutput(perChoice) {
      const b = body as Body
      if (b.max_completion_tokens != null) b.max_completion_tokens = perChoice
      else b.max_tokens = perChoice
    },
  }
}
