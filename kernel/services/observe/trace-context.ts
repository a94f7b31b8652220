/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): the client's `traceparent` is
 * accepted when valid and continued, an invalid or missing one is replaced by a fresh trace.
 * The gateway is one span of the trace: the model server receives a `traceparent` whose
 * parent is the gateway's span, and the access log shows the trace id. Made lazily, the first
 * time something asks (the upstream call or the access log), so a request that nobody asks
 * about pays nothing.
 */
import crypto from 'node:crypto'
import type { Exchange } from '../../contract/exchange.js'

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
function randomHex(bytes: number): string {
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
  let trace = ex.state.trace
  if (trace) return trace
  const client = parseTraceparent(ex.header('traceparent'))
  if (client) {
    const state = ex.header('tracestate')
    trace = {
      traceId: client.traceId,
      spanId: randomHex(8),
      parentId: client.parentId,
      flags: client.flags,
      tracestate: state && state.length <= 512 ? state : undefined,
    }
  } else {
    trace = { traceId: randomHex(16), spanId: randomHex(8), flags: '01' }
  }
  ex.state.trace = trace
  return trace
}

/** The `traceparent` (and `tracestate`) headers of a call to a model server made for `ex`. */
export function upstreamTraceHeaders(ex: Exchange, headers: Record<string, string>): void {
  const trace = traceOf(ex)
  headers.traceparent = `00-${trace.traceId}-${trace.spanId}-${trace.flags}`
  if (trace.tracestate !== undefined) headers.tracestate = trace.tracestate
  else delete headers.tracestate
}
