/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): the client's `traceparent` is
 * accepted when valid and continued, an invalid or missing one is replaced by a fresh trace.
 * The gateway is one span of the trace: the model server receives a `traceparent` whose
 * parent is the gateway's span, and the access log shows the trace id. Made lazily, the first
 * time something asks (the upstream call or the access log), so a request that nobody asks
 * about pays nothing. While traces are exported (TraceExporter), the context is made as the
 * request begins, an internal call's under its calling request's, and each model call has a span
 * of its own, the parent named in the traceparent that call sends.
 */
import crypto from 'node:crypto'
import type { Exchange } from '../../contract/exchange.js'
import type { Outcome } from '../../contract/plugin.js'
import type { ModelConfig } from '../../../schemas/models.schema.js'

export interface TraceContext {
  /** 32 lower-case hex digits; never all zeros. */
  readonly traceId: string
  /** The gateway's own span (16 hex digits): the parent-id of the call to the model server. */
  readonly spanId: string
  /** The client's span, when the client sent a valid traceparent. */
  readonly parentId?: string
  /** Trace flags, two hex digits (the client's, or `01` for a fresh trace: the access log records it). */
  readonly flags: string
  /** The client's `tracestate`, passed on unchanged with a valid traceparent (at most 512 chars). */
  readonly tracestate?: string
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

// version-traceid-parentid-flags; a future version (not ff) may append fields after a dash.
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-[^]*)?$/
const ZERO_TRACE = '0'.repeat(32)
const ZERO_SPAN = '0'.repeat(16)

/** The trace context of a `traceparent` header, or undefined when it is not valid. */
export function parseTraceparent(
  header: string | undefined,
): { traceId: string; parentId: string; flags: string } | undefined {
  if (header === undefined || header.length > 512) return undefined
  const m = TRACEPARENT.exec(header.trim())
  if (!m) return undefined
  const [, version, traceId, parentId, flags, rest] = m
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined
  if (traceId === ZERO_TRACE || parentId === ZERO_SPAN) return undefined
  return { traceId: traceId!, parentId: parentId!, flags: flags! }
}

/**
 * Random hex from a pool of CSPRNG bytes refilled 4 KB at a time (crypto.randomUUID keeps a
 * pool the same way; a randomBytes call per id costs ~2 µs). One string per id, no dashes to
 * strip: the trace id and span id are 2 of the ~40 allocations a request makes.
 */
const pool = Buffer.allocUnsafe(4096)
let used = pool.length
export function randomHex(bytes: number): string {
  for (;;) {
    if (used + bytes > pool.length) {
      crypto.randomFillSync(pool)
      used = 0
    }
    const hex = pool.toString('hex', used, used + bytes)
    used += bytes
    // All zeros is not a valid id (a chance of 2^-64 at the least); draw again.
    if (hex !== ZERO_TRACE && hex !== ZERO_SPAN) return hex
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
  const client = parseTraceparent(ex.header('traceparent'))
  if (!client) return { traceId: randomHex(16), spanId, flags: '01' }
  const state = ex.header('tracestate')
  const tracestate = state && state.length <= 512 ? state : undefined
  return { traceId: client.traceId, spanId, parentId: client.parentId, flags: client.flags, tracestate }
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
  headers.traceparent = `00-${trace.traceId}-${span?.spanId ?? trace.spanId}-${trace.flags}`
  if (trace.tracestate !== undefined) headers.tracestate = trace.tracestate
  else delete headers.tracestate
  return span
}
