/**
 * `usage_metric` of a Query service response (spec 001, "Query response"): token counts and
 * indicative costs, with the input broken down by where the tokens came from. The totals are
 * the model server's own report (what the usage records hold); the breakdown is measured per
 * part with a tokenizer and then made to add up to the report exactly: what the parts do not
 * account for (the chat template's tokens around the messages) is counted as `system_prompt`,
 * and parts measured above the report (a different tokenizer) are scaled down by the largest
 * remainder. Costs are the same split at the model's unit prices.
 */

export const INPUT_PARTS = [
  'user_query',
  'incontext_text',
  'system_prompt',
  'knowledge_base',
  'conversation_history',
] as const
export type InputPart = (typeof INPUT_PARTS)[number]
export type InputBreakdown = Record<InputPart, number>

export interface UsageMetric {
  readonly input_token_count: number
  readonly output_token_count: number
  readonly total_token_count: number
  readonly input_token_cost: number
  readonly output_token_cost: number
  readonly total_token_cost: number
  readonly input_token_details: InputBreakdown
  readonly output_token_details: { readonly output_response: number }
  readonly input_token_cost_details: InputBreakdown
  readonly output_token_cost_details: { readonly output_response: number }
}

/** What one token in and out is worth (kernel/services/catalog/prices.ts `unitPrices`). */
export interface TokenPrices {
  readonly input: number
  readonly output: number
}

/**
 * Splits `total` over the parts: the measured counts when they fit (the rest to system_prompt),
 * else in proportion to them, by the largest remainder, so the parts always add up to `total`.
 */
export function splitInput(measured: Partial<InputBreakdown>, total: number): InputBreakdown {
  const counts = Object.fromEntries(
    INPUT_PARTS.map((p) => [p, Math.max(0, Math.round(measured[p] ?? 0))]),
  ) as InputBreakdown
  const sum = INPUT_PARTS.reduce((s, p) => s + counts[p], 0)
  if (sum <= total) {
    counts.system_prompt += total - sum
    return counts
  }
  const shares = INPUT_PARTS.map((p) => ({ p, exact: (counts[p] * total) / sum }))
  const out = Object.fromEntries(shares.map(({ p, exact }) => [p, Math.floor(exact)])) as InputBreakdown
  let left = total - INPUT_PARTS.reduce((s, p) => s + out[p], 0)
  for (const { p } of [...shares].sort((a, b) => (b.exact % 1) - (a.exact % 1))) {
    if (left-- <= 0) break
    out[p] += 1
  }
  return out
}

/** Rounds a cost to 1e-12 so that sums of parts and totals compare equal as printed. */
const money = (x: number): number => Math.round(x * 1e12) / 1e12

/**
 * The usage_metric of one model call: `inputTokens` and `outputTokens` as the server reported
 * them (or the gateway's estimate), the input split by `measured`, priced at `prices`.
 */
export function usageMetric(
  measured: Partial<InputBreakdown>,
  used: { inputTokens: number; outputTokens: number },
  prices: TokenPrices,
): UsageMetric {
  const details = splitInput(measured, used.inputTokens)
  const costs = Object.fromEntries(INPUT_PARTS.map((p) => [p, money(details[p] * prices.input)])) as InputBreakdown
  const inputCost = money(INPUT_PARTS.reduce((s, p) => s + costs[p], 0))
  const outputCost = money(used.outputTokens * prices.output)
  return {
    input_token_count: used.inputTokens,
    output_token_count: used.outputTokens,
    total_token_count: used.inputTokens + used.outputTokens,
    input_token_cost: inputCost,
    output_token_cost: outputCost,
    total_token_cost: money(inputCost + outputCost),
    input_token_details: details,
    output_token_details: { output_response: used.outputTokens },
    input_token_cost_details: costs,
    output_token_cost_details: { output_response: outputCost },
  }
}

/** The sum of several usage metrics (a query's answer with the calls made around it). */
export function addUsageMetrics(a: UsageMetric, b: UsageMetric): UsageMetric {
  const details = Object.fromEntries(
    INPUT_PARTS.map((p) => [p, a.input_token_details[p] + b.input_token_details[p]]),
  ) as InputBreakdown
  const costs = Object.fromEntries(
    INPUT_PARTS.map((p) => [p, money(a.input_token_cost_details[p] + b.input_token_cost_details[p])]),
  ) as InputBreakdown
  const inputCost = money(INPUT_PARTS.reduce((s, p) => s + costs[p], 0))
  const outputCost = money(a.output_token_cost + b.output_token_cost)
  return {
    input_token_count: a.input_token_count + b.input_token_count,
    output_token_count: a.output_token_count + b.output_token_count,
    total_token_count: a.total_token_count + b.total_token_count,
    input_token_cost: inputCost,
    output_token_cost: outputCost,
    total_token_cost: money(inputCost + outputCost),
    input_token_details: details,
    output_token_details: {
      output_response: a.output_token_details.output_response + b.output_token_details.output_response,
    },
    input_token_cost_details: costs,
    output_token_cost_details: { output_response: outputCost },
  }
}
