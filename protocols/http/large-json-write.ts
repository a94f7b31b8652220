/**
 * A large JSON value (a request body of tens of MiB, on its way to a model server) written as
 * UTF-8 bytes in turns of the event loop: the same bytes as `Buffer.from(JSON.stringify(value))`,
 * which for a 60 MiB message held the loop 250 ms to serialize and 95 ms more to encode. Small
 * parts are written by `JSON.stringify` itself; a long string is written in slices, each
 * checked for what JSON must escape and copied as it is when nothing is (most text), and only
 * otherwise serialized by `JSON.stringify`.
 */
import { ByteSink, LARGE_BODY } from './byte-sink.js'
import { Turns } from './turns.js'

/** A part whose JSON text is at most about this long is written by one `JSON.stringify`. */
const SMALL_PART = 1 << 16
/** A string at least this long is written in slices of this many UTF-16 units (a few ms each). */
export const SLICE = 1 << 18
/** Items of an array written by one JSON.stringify, at most. */
const RUN = 4096
/** Room past the size hint: a body relayed upstream gains a field or two (its model's served name). */
const HINT_SLACK = 1 << 20
/** What `JSON.stringify` writes differently from the string itself: quote, backslash, controls, surrogates. */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/

/**
 * Whether `value`'s JSON text is about LARGE_BODY or more (string lengths and a few characters a
 * node, counted until the bound is reached): a walk, 0.7 µs for a small chat body (3 µs with 8
 * tools), that tells which bodies `jsonBytesInTurns` is for.
 */
export function isLargeJson(value: unknown): boolean {
  return !sizeUnder(value, LARGE_BODY)
}

/**
 * Whether the body a request relays upstream is large: by the size its client declared (a body
 * relayed is about the size it came in), or, with none (an in-process call, a chunked request),
 * by `isLargeJson`. A header read instead of a walk on the hot path.
 */
export function isLargeBody(value: unknown, contentLength: string | undefined): boolean {
  return contentLength === undefined ? isLargeJson(value) : declaredSize(contentLength) >= LARGE_BODY
}

/**
 * `Buffer.from(JSON.stringify(value))`, in turns of the event loop, for JSON data (what a parsed
 * body and the plugins make of it: a `toJSON` is called once, as JSON.stringify does, but one
 * returning another object with a `toJSON` may have that called too). `sizeHint`: the size the
 * bytes will about have (the client's body, for a body relayed upstream): the buffer is made
 * that large (and a megabyte more) at once, as growing it copies what was written (a 60 MiB body
 * doubled its way up with a copy of 32 MiB in one turn, 130 ms on a loaded machine).
 */
export async function jsonBytesInTurns(value: unknown, sizeHint = 0): Promise<Buffer> {
  const writer = new JsonWriter(sizeHint > 0 ? sizeHint + HINT_SLACK : 0)
  if (!(await writer.value(toJson(value, '')))) throw new TypeError('the value has no JSON text')
  return writer.bytes()
}

/** A JSON text that `utf8InTurns` is for (a body a plugin made a string of, LARGE_BODY or more). */
export const isLargeText = (body: unknown): body is string => typeof body === 'string' && body.length >= LARGE_BODY

/**
 * `Buffer.from(text)` in turns of the event loop: a large body that a plugin made a string of
 * (the backends service sends it; encoding 60 MiB took 95 to 150 ms in one turn). Slices never
 * cut a surrogate pair, so the bytes are the same as the whole string's.
 */
export async function utf8InTurns(text: string): Promise<Buffer> {
  const sink = new ByteSink(text.length, [])
  const turns = new Turns()
  for (let from = 0; from < text.length; ) {
    const to = sliceEnd(text, from)
    sink.write(text.slice(from, to))
    from = to
    if (turns.due) await turns.next()
  }
  return sink.bytes()
}

/** The size a request's body declares (`content-length`), to size what is written from it. */
export function declaredSize(header: string | undefined): number {
  const n = Number(header)
  return Number.isSafeInteger(n) && n > 0 ? n : 0
}

/** The counted size of `value` stays under `budget` (counting stops as soon as it does not). */
function sizeUnder(value: unknown, budget: number): boolean {
  return counted(value, budget) < budget
}

/** The size of `value`'s JSON text as counted here, counting stopped once it reaches `budget`. */
function counted(value: unknown, budget: number): number {
  let size = 0
  const visit = (v: unknown): void => {
    if (typeof v === 'string') size += v.length + 2
    else if (v === null || typeof v !== 'object') size += 8
    else if (Array.isArray(v)) {
      size += 2
      for (let i = 0; i < v.length && size < budget; i++) visit(v[i])
    } else {
      size += 2
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue
        size += key.length + 4
        if (size >= budget) return
        visit((v as Record<string, unknown>)[key])
      }
    }
  }
  visit(value)
  return size
}

class JsonWriter {
  private readonly sink: ByteSink
  private readonly turns = new Turns()
  /** Small pieces, written to the sink together. */
  private pending: string[] = []
  private pendingLength = 0
  private readonly open = new Set<object>()

  constructor(capacity: number) {
    this.sink = new ByteSink(capacity, [])
  }

  bytes(): Buffer {
    this.flush()
    return this.sink.bytes()
  }

  /** Writes `v` (its `toJSON` already applied); false, writing nothing, for what JSON omits. */
  async value(v: unknown): Promise<boolean> {
    if (omitted(v)) return false
    if (!this.small(v)) await this.large(v as string | object)
    return true
  }

  /** Writes `v` at once if it is small (one JSON.stringify); false, writing nothing, if it is not. */
  private small(v: unknown): boolean {
    const whole =
      typeof v === 'string'
        ? v.length < SLICE
        : v === null || typeof v !== 'object' || !isPlain(v) || sizeUnder(v, SMALL_PART)
    if (whole) this.piece(JSON.stringify(v))
    return whole
  }

  private async large(v: string | object): Promise<void> {
    if (typeof v === 'string') return this.longString(v)
    if (this.open.has(v)) throw new TypeError('Converting circular structure to JSON')
    this.open.add(v)
    if (Array.isArray(v)) await this.array(v)
    else await this.object(v as Record<string, unknown>)
    this.open.delete(v)
  }

  private async array(items: readonly unknown[]): Promise<void> {
    this.piece('[')
    for (let i = 0; i < items.length; ) {
      if (i > 0) this.piece(',')
      // A run of small items (a million token ids, or messages) is written by one JSON.stringify:
      // one call an item cost 2 to 4 times the CPU, and the collector a 270 ms pause for their strings.
      const run = smallRun(items, i)
      if (run > 0) {
        this.piece(JSON.stringify(items.slice(i, i + run)).slice(1, -1))
        i += run
      } else {
        const v = toJson(items[i], i)
        if (omitted(v)) this.piece('null')
        else if (!this.small(v)) await this.large(v as string | object)
        i++
      }
      if (this.turns.due) await this.next()
    }
    this.piece(']')
  }

  private async object(fields: Record<string, unknown>): Promise<void> {
    this.piece('{')
    let first = true
    for (const key of Object.keys(fields)) {
      const v = toJson(fields[key], key)
      if (omitted(v)) continue
      this.piece(`${first ? '' : ','}${JSON.stringify(key)}:`)
      first = false
      if (!this.small(v)) await this.large(v as string | object)
      if (this.turns.due) await this.next()
    }
    this.piece('}')
  }

  /** A long string, slice by slice: copied as it is where nothing needs escaping. */
  private async longString(s: string): Promise<void> {
    this.piece('"')
    this.flush()
    for (let from = 0; from < s.length; ) {
      const to = sliceEnd(s, from)
      const slice = s.slice(from, to)
      this.sink.write(ESCAPED.test(slice) ? JSON.stringify(slice).slice(1, -1) : slice)
      from = to
      if (this.turns.due) await this.turns.next()
    }
    this.piece('"')
  }

  private piece(text: string): void {
    this.pending.push(text)
    this.pendingLength += text.length
    if (this.pendingLength >= SMALL_PART) this.flush()
  }

  private flush(): void {
    if (this.pending.length === 0) return
    this.sink.write(this.pending.length === 1 ? this.pending[0]! : this.pending.join(''))
    this.pending = []
    this.pendingLength = 0
  }

  private async next(): Promise<void> {
    this.flush()
    await this.turns.next()
  }
}

/** An array or an object that `JSON.stringify` writes member by member (not a boxed primitive). */
function isPlain(v: object): boolean {
  if (Array.isArray(v)) return true
  return !(v instanceof Number || v instanceof String || v instanceof Boolean)
}

/** What JSON.stringify writes for `value`, the member `key` of its holder: its `toJSON(key)` when it has one. */
function toJson(value: unknown, key: string | number): unknown {
  const toJSON = value !== null && typeof value === 'object' && (value as { toJSON?: unknown }).toJSON
  return typeof toJSON === 'function' ? (toJSON as (key: string) => unknown).call(value, String(key)) : value
}

/**
 * How many items from `from` on JSON.stringify may write together as it would one by one: small
 * ones (SMALL_PART in all, RUN at most), none with a `toJSON` of its own (which an array passes
 * the item's index: in a slice, another one).
 */
function smallRun(items: readonly unknown[], from: number): number {
  const end = Math.min(items.length, from + RUN)
  let left = SMALL_PART
  let i = from
  for (; i < end; i++) {
    const v = items[i]
    if (v !== null && typeof v === 'object') {
      if (!isPlain(v) || typeof (v as { toJSON?: unknown }).toJSON === 'function') break
      left -= counted(v, left)
    } else left -= typeof v === 'string' ? v.length + 2 : 8
    if (left <= 0) break
  }
  return i - from
}

/** What JSON leaves out of an object (and writes as null in an array). */
const omitted = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol'

/** Where the slice of `s` from `from` ends: SLICE units on, never between the two halves of a surrogate pair (each would be escaped, or encoded, alone). */
function sliceEnd(s: string, from: number): number {
  const to = Math.min(from + SLICE, s.length)
  const c = s.charCodeAt(to - 1)
  return to < s.length && c >= 0xd800 && c <= 0xdbff ? to - 1 : to
}
