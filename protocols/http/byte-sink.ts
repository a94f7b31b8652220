/**
 * A body gathered into one buffer as it arrives, each chunk copied and let go at once. A body
 * kept as a list of its chunks until its end (then joined) holds a thousand 64 KB reads for a
 * 60 MiB body: they come from the C allocator's main arena, where they fragment it, and the
 * process kept 200 MB it no longer used after such bodies (issue 31, point 5). Copied into one
 * large buffer (a mapping of its own, given back whole when freed), each read's memory is reused
 * by the next. Small bodies never come here: they stay a list of chunks, with no copy. A large
 * JSON body written upstream is encoded into one too (large-json-write.ts).
 */
export class ByteSink {
  private buf: Buffer
  private size = 0

  /** `expected`: the declared length, when there is one (trusted up to 256 MiB; past it, grown as it comes). */
  constructor(expected: number | undefined, chunks: readonly Buffer[]) {
    const held = chunks.reduce((n, c) => n + c.length, 0)
    this.buf = Buffer.allocUnsafeSlow(Math.max(Math.min(expected ?? 0, 1 << 28), held * 2))
    for (const chunk of chunks) this.push(chunk)
  }

  get length(): number {
    return this.size
  }

  push(chunk: Buffer): void {
    this.reserve(chunk.length)
    chunk.copy(this.buf, this.size)
    this.size += chunk.length
  }

  /** Appends `text` as UTF-8 (a surrogate pair must not be cut between two calls). */
  write(text: string): void {
    // At most 3 bytes a UTF-16 unit: counted exactly only when that bound does not fit.
    if (this.size + text.length * 3 > this.buf.length) this.reserve(Buffer.byteLength(text))
    this.size += this.buf.write(text, this.size)
  }

  private reserve(more: number): void {
    if (this.size + more <= this.buf.length) return
    const grown = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.size + more))
    this.buf.copy(grown, 0, 0, this.size)
    this.buf = grown
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.size)
  }
}

/**
 * From this size on a body or a reply is large: gathered in a ByteSink, parsed in turns
 * (json-body.ts), encoded in a turn of its own before it goes upstream, read on the backend's
 * worker. One threshold, so that what is large to one step is large to all.
 */
export const LARGE_BODY = 1 << 20
