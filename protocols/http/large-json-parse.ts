/**
 * A large JSON body parsed in turns of the event loop, to the value `JSON.parse` makes of it. A
 * 60 MiB message took the loop 45 ms to decode and 60 ms to parse in one piece (on a loaded
 * machine, twice that); a body of a million small messages, 0.5 s. Here:
 *
 * 1. one pass over the bytes (strings skipped with `indexOf`) checks the nesting and finds the
 *    containers and strings of PIECE bytes or more;
 * 2. those are read member by member, slice by slice; everything smaller is parsed by
 *    `JSON.parse` itself, PIECE bytes of members at a time (so it validates what it parses);
 * 3. a long string is decoded PIECE bytes at a time and joined once.
 *
 * Only what lies between the pieces (commas, colons, the brackets of large containers) is
 * checked here. Anything this parser cannot read is `NotJson`: the caller then lets JSON.parse
 * read the whole text, for its verdict and its exact message (json-body.ts).
 */
import { Turns } from './turns.js'

/** What one `JSON.parse` (or one slice of a string) takes at most, in bytes: a few ms of work. */
export const PIECE = 1 << 18

/** The text is not JSON as this parser reads it (JSON.parse is asked why). */
export class NotJson extends Error {}

/** Nested deeper than the limit (the caller names it). */
export class TooDeep extends Error {}

const QUOTE = 0x22,
  BACKSLASH = 0x5c,
  COMMA = 0x2c,
  COLON = 0x3a,
  OPEN_BRACE = 0x7b,
  CLOSE_BRACE = 0x7d,
  OPEN_BRACKET = 0x5b,
  CLOSE_BRACKET = 0x5d,
  SPACE = 0x20,
  TAB = 0x09,
  LF = 0x0a,
  CR = 0x0d,
  U = 0x75

/** A control character, which JSON allows in a string only escaped. */
const CONTROL = /[\u0000-\u001f]/

/** How many scanning steps between two looks at the clock. */
const STEPS = 1 << 14

export async function parseLargeJson(buf: Buffer, maxDepth: number): Promise<unknown> {
  const turns = new Turns()
  const large = await scan(buf, maxDepth, turns)
  await turns.next()
  const start = skipSpace(buf, 0)
  let end = buf.length
  while (end > start && isSpace(buf[end - 1]!)) end--
  if (start >= end) throw new NotJson()
  const reader = new Reader(buf, large, turns)
  if (reader.valueEnd(start) !== end) throw new NotJson()
  return reader.value(start, end)
}

/**
 * The nesting check of json-body.ts, in turns, noting on the way each container and string of
 * PIECE bytes or more (where it opens → where it closes).
 */
async function scan(buf: Buffer, maxDepth: number, turns: Turns): Promise<Map<number, number>> {
  const large = new Map<number, number>()
  const open: number[] = []
  let depth = 0
  let broken = false
  let steps = 0
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i]!
    if (c === QUOTE) {
      const close = closingQuote(buf, i)
      if (close < 0) {
        broken = true
        break
      }
      if (close - i >= PIECE) large.set(i, close)
      i = close
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > maxDepth) throw new TooDeep()
      open.push(i)
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--
      const from = open.pop()
      if (from === undefined) broken = true
      else if (i - from >= PIECE) large.set(from, i)
    }
    if (++steps === STEPS) {
      steps = 0
      if (turns.due) await turns.next()
    }
  }
  if (broken || open.length > 0) throw new NotJson()
  return large
}

class Reader {
  constructor(
    private readonly buf: Buffer,
    /** Where each large container or string closes, by where it opens. */
    private readonly large: Map<number, number>,
    private readonly turns: Turns,
  ) {}

  /** The value whose text is exactly [start, end). */
  async value(start: number, end: number): Promise<unknown> {
    if (end - start < PIECE || this.large.get(start) !== end - 1) return this.parse(start, end)
    const c = this.buf[start]
    if (c === QUOTE) return this.longString(start + 1, end - 1)
    return c === OPEN_BRACKET ? this.array(start, end) : this.object(start, end)
  }

  /** Where the value that starts at `i` ends (one past its last byte). */
  valueEnd(i: number): number {
    const buf = this.buf
    const c = buf[i]
    if (c === QUOTE || c === OPEN_BRACE || c === OPEN_BRACKET) {
      const close = this.large.get(i) ?? (c === QUOTE ? closingQuote(buf, i) : closingBracket(buf, i))
      if (close < 0) throw new NotJson()
      return close + 1
    }
    // A number, true, false or null: up to what may follow a value (JSON.parse checks the rest).
    let j = i
    while (j < buf.length && !endsValue(buf[j]!)) j++
    if (j === i) throw new NotJson()
    return j
  }

  private parse(start: number, end: number): unknown {
    try {
      return JSON.parse(this.buf.toString('utf8', start, end))
    } catch {
      throw new NotJson()
    }
  }

  private async array(start: number, end: number): Promise<unknown[]> {
    const out: unknown[] = []
    const batch = new Batch()
    let i = skipSpace(this.buf, start + 1)
    if (i === end - 1) return this.closes(i, CLOSE_BRACKET, out)
    for (;;) {
      const valueEnd = this.valueEnd(i)
      if (valueEnd - i >= PIECE) {
        this.arrayBatch(batch, out)
        out.push(await this.value(i, valueEnd))
      } else if (!batch.add(i, valueEnd)) {
        this.arrayBatch(batch, out)
        batch.add(i, valueEnd)
      }
      const next = skipSpace(this.buf, valueEnd)
      if (this.buf[next] !== COMMA) {
        this.arrayBatch(batch, out)
        return this.closes(next, CLOSE_BRACKET, out, end)
      }
      i = skipSpace(this.buf, next + 1)
      if (this.turns.due) await this.turns.next()
    }
  }

  private async object(start: number, end: number): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {}
    const batch = new Batch()
    let i = skipSpace(this.buf, start + 1)
    if (i === end - 1) return this.closes(i, CLOSE_BRACE, out)
    for (;;) {
      if (this.buf[i] !== QUOTE) throw new NotJson()
      const keyEnd = this.valueEnd(i)
      const colon = skipSpace(this.buf, keyEnd)
      if (this.buf[colon] !== COLON) throw new NotJson()
      const valueStart = skipSpace(this.buf, colon + 1)
      const valueEnd = this.valueEnd(valueStart)
      if (valueEnd - i >= PIECE) {
        this.objectBatch(batch, out)
        const key = (await this.value(i, keyEnd)) as string
        define(out, key, await this.value(valueStart, valueEnd))
      } else if (!batch.add(i, valueEnd)) {
        this.objectBatch(batch, out)
        batch.add(i, valueEnd)
      }
      const next = skipSpace(this.buf, valueEnd)
      if (this.buf[next] !== COMMA) {
        this.objectBatch(batch, out)
        return this.closes(next, CLOSE_BRACE, out, end)
      }
      i = skipSpace(this.buf, next + 1)
      if (this.turns.due) await this.turns.next()
    }
  }

  /** `value`, if `at` is the bracket `closer` that ends its container (at `end - 1`, when given). */
  private closes<T>(at: number, closer: number, value: T, end = at + 1): T {
    if (at !== end - 1 || this.buf[at] !== closer) throw new NotJson()
    return value
  }

  /** The array members gathered in `batch`, parsed by one JSON.parse and added to `out`. */
  private arrayBatch(batch: Batch, out: unknown[]): void {
    if (batch.empty) return
    for (const item of this.parseWrapped('[', batch, ']') as unknown[]) out.push(item)
  }

  /** The object members gathered in `batch`, parsed by one JSON.parse and added to `out` in order. */
  private objectBatch(batch: Batch, out: Record<string, unknown>): void {
    if (batch.empty) return
    const part = this.parseWrapped('{', batch, '}') as Record<string, unknown>
    for (const key of Object.keys(part)) define(out, key, part[key])
  }

  private parseWrapped(open: string, batch: Batch, close: string): unknown {
    const text = this.buf.toString('utf8', batch.start, batch.end)
    batch.clear()
    try {
      return JSON.parse(open + text + close)
    } catch {
      throw new NotJson()
    }
  }

  /**
   * The string whose UTF-8 text (quotes excluded) is [from, to), decoded a slice at a time (a
   * slice with an escape is read by JSON.parse) and joined once.
   */
  private async longString(from: number, to: number): Promise<string> {
    const buf = this.buf
    const parts: string[] = []
    for (let at = from; at < to; ) {
      const cut = at + PIECE >= to ? to : sliceEnd(buf, at, at + PIECE)
      const slice = buf.subarray(at, cut)
      const text = slice.toString('utf8')
      if (slice.indexOf(BACKSLASH) < 0 && !CONTROL.test(text)) parts.push(text)
      else {
        try {
          parts.push(JSON.parse(`"${text}"`) as string)
        } catch {
          throw new NotJson()
        }
      }
      at = cut
      if (this.turns.due) await this.turns.next()
    }
    const text = parts.join('')
    // The join copies the whole string in this turn (20 ms for 60 MiB on a quiet machine): what
    // comes next (the request's steps, if this was the body's last piece) waits for the next.
    await this.turns.next()
    return text
  }
}

/** Consecutive members, [start, end) of the text, parsed together while they stay under PIECE. */
class Batch {
  start = -1
  end = -1

  get empty(): boolean {
    return this.start < 0
  }

  /** Adds the member [start, end); false (nothing added) when the batch would pass PIECE. */
  add(start: number, end: number): boolean {
    if (this.start < 0) this.start = start
    else if (end - this.start > PIECE) return false
    this.end = end
    return true
  }

  clear(): void {
    this.start = -1
    this.end = -1
  }
}

/**
 * Where to end a slice of a string's text near `to` (after `from`): not inside an escape (the
 * 6 bytes before `to` are looked at: `\uXXXX` is the longest) nor inside a UTF-8 sequence.
 */
function sliceEnd(buf: Buffer, from: number, to: number): number {
  let cut = to
  // The last backslash among the 6 bytes before `to` (a loop: lastIndexOf would search on to the start).
  let slash = cut - 1
  while (slash >= cut - 6 && slash >= from && buf[slash] !== BACKSLASH) slash--
  if (slash >= from && slash >= cut - 6) {
    // A run of backslashes begins with an escape; pairs follow (`\\`), the last may take more.
    let run = slash
    while (run > from && buf[run - 1] === BACKSLASH) run--
    let runEnd = slash + 1
    while (buf[runEnd] === BACKSLASH) runEnd++
    // Inside the run: back to an even place in it, where an escape begins.
    if (cut < runEnd) cut = run + 2 * Math.floor((cut - run) / 2)
    else if ((runEnd - run) % 2 === 1) {
      const last = runEnd - 1
      if (cut < last + (buf[last + 1] === U ? 6 : 2)) cut = last
    }
  }
  // A UTF-8 sequence is at most 4 bytes; past 3 continuation bytes each stands alone (U+FFFD either way).
  for (let back = 0; back < 3 && (buf[cut]! & 0xc0) === 0x80; back++) cut--
  return cut
}

/** The index of the quote that closes the string opened at `open` (one not escaped), or -1. */
export function closingQuote(buf: Buffer, open: number): number {
  let at = open
  for (;;) {
    at = buf.indexOf(QUOTE, at + 1)
    if (at < 0) return -1
    let slashes = 0
    while (buf[at - 1 - slashes] === BACKSLASH) slashes++
    if (slashes % 2 === 0) return at
  }
}

/** The index of the bracket that closes the (small) container opened at `open`, or -1. */
function closingBracket(buf: Buffer, open: number): number {
  let depth = 0
  for (let i = open; i < buf.length; i++) {
    const c = buf[i]!
    if (c === QUOTE) {
      i = closingQuote(buf, i)
      if (i < 0) return -1
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++
    else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return i
  }
  return -1
}

const isSpace = (c: number) => c === SPACE || c === LF || c === CR || c === TAB
const endsValue = (c: number) => c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)

function skipSpace(buf: Buffer, i: number): number {
  while (i < buf.length && isSpace(buf[i]!)) i++
  return i
}

/** `out[key] = value` as JSON.parse makes it: an own property even for `__proto__`. */
function define(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true })
  else out[key] = value
}
