/**
 * The request's W3C trace context (protocols/http/trace-context.ts): the client's trace
 * continued, or a fresh one. The gateway is one span of the trace: the model server receives a
 * `traceparent` whose parent is the gateway's span, and the access log shows the trace id. Made
 * lazily, the first time something asks (the upstream call or the access log), so a request that
 * nobody asks about pays nothing. While traces are exported (TraceExporter), the context is made
 * as the request begins, an internal call's under its calling request's, and each model call has
 * a span of its own, the parent named in the traceparent that call sends.
 */
import type { Exchange } from '../../contract/exchange.js'
import type { Outcome } from '../../contract/plugin.js'
import type { ModelConfig } from '../../../schemas/models.schema.js'
import { continueTrace, formatTraceparent, randomHex, type TraceIds } from '../../../protocols/http/trace-context.js'

export interface TraceContext extends TraceIds {
  /** While traces are exported: opens a model call's span (its id is the parent-id of the call's traceparent). */
  readonly modelCall?: (model: ModelConfig, path: string) => ModelCallSpan
}

/** A model call's span: told where the call went and how its answer went (a streamed body ends as it closes). */
export interface ModelCallSpan {
  readonly spanId: string
  sentTo(server: string): void
  answer<T extends { status: number; body?: NodeJS.EventEmitter }>(answer: Promise<T>): Promise<T>
}

/**
 * Where spans go when traces are exported (bin/otel-traces.ts, loaded only when configured): it
 * makes each request's trace context as the request begins (an internal call's under its
 * calling request's, with `modelCall`), and is told when the request ended.
 */
export interface TraceExporter {
  begin(ex: Exchange): TraceContext
  /** The request's span, queue wait and model calls end; `client`: the client's address. */
  end(ex: Exchange, outcome: Outcome, endedAt: number, client: string | undefined): void
  /** Sends what is still buffered. */
  close(): Promise<void>
}

declare module '../../contract/exchange.js' {
  interface ExchangeState {
    /** The request's trace context (trace-context.ts), made on first use. */
    trace?: TraceContext
  }
}

/** The request's trace context: the client's trace continued, or a fresh one. */
export function traceOf(ex: Exchange): TraceContext {
  return (ex.state.trace ??= newTrace(ex))
}

/** A trace context for `ex`: a span under `parent` (an internal call's request), else the client's trace continued, else a fresh trace. */
export function newTrace(ex: Exchange, parent?: TraceContext): TraceContext {
  const spanId = randomHex(8)
  if (parent) return { ...parent, spanId, parentId: parent.spanId, modelCall: undefined }
  return continueTrace(ex.header('traceparent'), ex.header('tracestate'), spanId)
}

/**
 * The `traceparent` (and `tracestate`) headers of a call to a model server made for `ex`; while
 * traces are exported, the call's own span (the traceparent's parent-id), else the request's.
 */
export function upstreamTraceHeaders(
  ex: Exchange,
  headers: Record<string, string>,
  model: ModelConfig,
  path: string,
): ModelCallSpan | undefined {
  const trace = traceOf(ex)
  const span = trace.modelCall?.(model, path)
  headers.traceparent = formatTraceparent(trace, span?.spanId ?? trace.spanId)
  if (trace.tracestate !== undefined) headers.tracestate = trace.tracestate
  else delete headers.tracestate
  return span
}
