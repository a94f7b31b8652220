/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/), level 1: which `traceparent` headers
 * are valid, the ids a trace and a span are made of, and the `traceparent` a call sends. A
 * client's valid traceparent is continued; an invalid or missing one starts a fresh trace. The
 * kernel keeps a request's context and makes its spans (kernel/services/observe/trace-context.ts).
 */
import crypto from 'node:crypto'

/** A trace as one span of it sees it. */
export interface TraceIds {
  /** 32 lower-case hex digits; never all zeros. */
  readonly traceId: string
  /** The span's own id (16 hex digits): the parent-id of the calls it makes. */
  readonly spanId: string
  /** The caller's span, when the caller sent a valid traceparent. */
  readonly parentId?: string
  /** Trace flags, two hex digits (the caller's, or `01` for a fresh trace). */
  readonly flags: string
  /** The caller's `tracestate`, passed on unchanged with a valid traceparent (at most 512 chars). */
  readonly tracestate?: string
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

/** The `traceparent` of a call made by span `spanId` of the trace. */
export function formatTraceparent(trace: Pick<TraceIds, 'traceId' | 'flags'>, spanId: string): string {
  return `00-${trace.traceId}-${spanId}-${trace.flags}`
}

/** A new span `spanId` of the trace the caller's headers name, or of a fresh trace when they name none validly. */
export function continueTrace(
  traceparent: string | undefined,
  tracestate: string | undefined,
  spanId: string,
): TraceIds {
  const caller = parseTraceparent(traceparent)
  if (!caller) return { traceId: randomHex(16), spanId, flags: '01' }
  const state = tracestate && tracestate.length <= 512 ? tracestate : undefined
  return { traceId: caller.traceId, spanId, parentId: caller.parentId, flags: caller.flags, tracestate: state }
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
