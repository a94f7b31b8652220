/** The compare's total `usage_metric`: the models' metrics added field by field. */
import { INPUT_PARTS, type InputBreakdown, type UsageMetric } from '../../protocols/query/usage-metric.js'

const money = (n: number) => Math.round(n * 1e12) / 1e12

function addParts(a: InputBreakdown, b: InputBreakdown, round: (n: number) => number): InputBreakdown {
  return Object.fromEntries(INPUT_PARTS.map((p) => [p, round(a[p] + b[p])])) as InputBreakdown
}

export function totalMetric(metrics: readonly UsageMetric[], zero: UsageMetric): UsageMetric {
  return metrics.reduce<UsageMetric>(
    (t, m) => ({
      input_token_count: t.input_token_count + m.input_token_count,
      output_token_count: t.output_token_count + m.output_token_count,
      total_token_count: t.total_token_count + m.total_token_count,
      input_token_cost: money(t.input_token_cost + m.input_token_cost),
      output_token_cost: money(t.output_token_cost + m.output_token_cost),
      total_token_cost: money(t.total_token_cost + m.total_token_cost),
      input_token_details: addParts(t.input_token_details, m.input_token_details, (n) => n),
      output_token_details: {
        output_response: t.output_token_details.output_response + m.output_token_details.output_response,
      },
      input_token_cost_details: addParts(t.input_token_cost_details, m.input_token_cost_details, money),
      output_token_cost_details: {
        output_response: money(
          t.output_token_cost_details.output_response + m.output_token_cost_details.output_response,
        ),
      },
    }),
    zero,
  )
}
