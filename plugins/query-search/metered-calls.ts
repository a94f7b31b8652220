/**
 * The model calls a search makes (embeddings of the query, `advanced_rag`'s variants, the
 * reranker), each through a gateway route with kernel.call, kept with their usage so that the
 * search's `usage_metric` is the sum of what they used, as the usage records hold it. The
 * breakdown: what the query's own words cost (`user_query`: the embedded query and its
 * variants, the query in the variants prompt, the query beside each reranked document), what
 * the retrieved passages cost (`knowledge_base`: the documents the reranker read), and the rest
 * (instructions, templates) as `system_prompt`.
 */
import { unitPrices, type CallOptions, type CallResult, type Usage } from '../../kernel/contract/index.js'
import type { ModelConfig } from '../../schemas/models.schema.js'
import { countTokens } from '../../domains/query/knowledge/tokens.js'
import {
  addUsageMetrics,
  usageMetric,
  type InputBreakdown,
  type UsageMetric,
} from '../../protocols/query/usage-metric.js'

export type RouteCall = (routeId: string, body: unknown, options?: CallOptions) => Promise<CallResult>

interface Metered {
  readonly route: string
  readonly body: unknown
  readonly usage: Usage
}

export class MeteredCalls {
  private readonly calls: Metered[] = []

  constructor(private readonly inner: RouteCall) {}

  readonly call: RouteCall = async (route, body, options) => {
    const result = await this.inner(route, body, options)
    this.calls.push({ route, body, usage: result.usage })
    return result
  }

  /** The sum of every call's usage_metric, each priced at the model that answered it. */
  usageMetric(query: string, modelOf: (id: string) => ModelConfig | undefined): UsageMetric {
    const queryTokens = countTokens(query)
    let total = usageMetric({}, { inputTokens: 0, outputTokens: 0 }, { input: 0, output: 0 })
    for (const c of this.calls) {
      const used = c.usage.used()
      const metric = usageMetric(
        measuredParts(c, queryTokens, used.inputTokens),
        used,
        unitPrices(c.usage.model ? modelOf(c.usage.model)?.prices : undefined),
      )
      total = addUsageMetrics(total, metric)
    }
    return total
  }
}

function measuredParts(c: Metered, queryTokens: number, input: number): Partial<InputBreakdown> {
  if (c.route === 'embeddings') return { user_query: input }
  const documents = (c.body as { documents?: unknown }).documents
  if (Array.isArray(documents)) {
    // A cross-encoder reads the query once beside each document.
    const docs = documents.filter((d): d is string => typeof d === 'string')
    return { user_query: queryTokens * docs.length, knowledge_base: docs.reduce((n, d) => n + countTokens(d), 0) }
  }
  return { user_query: queryTokens }
}
