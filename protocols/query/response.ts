/**
 * The Query service's response envelope (spec 001, "Query response"), the same for every body
 * type: `{response: {response, metadata: {sources, query_id, usage_metric, …}}, file, query_id}`.
 * `file` is the spec's "handler file name": the route's handler (`query`, `search`, …), which
 * tells a client which handler answered.
 */
import type { UsageMetric } from './usage-metric.js'

export interface QueryMetadata {
  /** Sources used when search was on, by source name (holding the requested output fields); `{}` otherwise. */
  readonly sources: Record<string, unknown>
  readonly query_id: string
  readonly usage_metric: UsageMetric
  readonly [extra: string]: unknown
}

export interface QueryResponse<Answer = string> {
  readonly response: { readonly response: Answer; readonly metadata: QueryMetadata }
  readonly file: string
  readonly query_id: string
}

export function queryResponse<Answer>(handler: string, answer: Answer, metadata: QueryMetadata): QueryResponse<Answer> {
  return { response: { response: answer, metadata }, file: handler, query_id: metadata.query_id }
}
