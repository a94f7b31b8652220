/**
 * Reads server-sent events from a byte stream: yields the `data:` payload of each event.
 * Handles events split across chunks, several events in one chunk, CRLF line ends, and
 * multi-line data (joined with newlines, as the SSE standard says). It scans with a cursor, so
 * a chunk holding many events is not copied once per event.
 */
import { StringDecoder } from 'node:string_decoder'

/**
 * Synchronous: `push` takes the next bytes and returns the data of every event they complete,
 * so a reader handles a whole upstream read without an async step per event.
 */
export class SseParser {
  // Node's StringDecoder: TextDecoder converts its options object through WebIDL on every call.
  private readonly decoder = new StringDecoder('utf8')
  private buffer = ''

  push(chunk: Uint8Array): string[] {
    this.buffer += this.decoder.write(chunk)
    const out: string[] = []
    let pos = 0
    for (;;) {
      const end = eventEnd(this.buffer, pos)
      if (end === -1) break
      const data = dataOf(this.buffer, pos, end)
      pos = skipBlank(this.buffer, end)
      if (data !== undefined) out.push(data)
    }
    if (pos > 0) this.buffer = this.buffer.slice(pos)
    return out
  }

  /** The data of a last event that had no blank line after it, if any. */
  end(): string | undefined {
    const rest = this.buffer + this.decoder.end()
    this.buffer = ''
    return rest.trim() === '' ? undefined : dataOf(rest, 0, rest.length)
  }
}

export async function* sseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const parser = new SseParser()
  for await (const chunk of body) yield* parser.push(chunk)
  const last = parser.end()
  if (last !== undefined) yield last
}

/** Index where the first complete event from `pos` ends (before its blank line), or -1. */
function eventEnd(buffer: string, pos: number): number {
  const lf = buffer.indexOf('\n\n', pos)
  const crlf = buffer.indexOf('\r\n\r\n', pos)
  if (lf === -1) return crlf
  if (crlf === -1) return lf
  return Math.min(lf, crlf)
}

/** Past the blank line that ends an event. */
function skipBlank(buffer: string, end: number): number {
  return buffer.startsWith('\r\n\r\n', end) ? end + 4 : end + 2
}

function dataOf(buffer: string, start: number, end: number): string | undefined {
  // The common case, one `data:` line and nothing else, without splitting.
  if (buffer.startsWith('data:', start) && buffer.indexOf('\n', start) >= end - 1) {
    const from = buffer.charCodeAt(start + 5) === 32 ? start + 6 : start + 5
    return buffer.slice(from, buffer.charCodeAt(end - 1) === 13 ? end - 1 : end)
  }
  let data: string | undefined
  for (const line of buffer.slice(start, end).split(/\r?\n/)) {
    if (!line.startsWith('data:')) continue
    const value = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5)
    data = data === undefined ? value : `${data}\n${value}`
  }
  return data
}
