/**
 * Events made by several producers (the answer's deltas while the rest of a query runs; the
 * models of a compare at once) read as one stream, with backpressure: `push` resolves only once
 * the reader has taken the event, so a producer that reads a model's stream reads no faster
 * than the socket is written. A reader that stops early refuses what is still pending, so the
 * producers stop too. Pure: no kernel service.
 */
export class EventChannel<T> implements AsyncIterable<T> {
  private readonly items: { value: T; taken: () => void; refused: (err: unknown) => void }[] = []
  private wake: (() => void) | undefined
  private ended = false
  private error: unknown = undefined

  /** Queues one event; resolves when the reader took it, rejects when the reader has gone. */
  push(value: T): Promise<void> {
    if (this.ended) return Promise.reject(new Error('the event stream has ended'))
    return new Promise<void>((taken, refused) => {
      this.items.push({ value, taken, refused })
      this.wake?.()
    })
  }

  /** No more events after those queued; with an error, the reader throws it after them. */
  end(error?: unknown): void {
    if (this.ended) return
    this.ended = true
    this.error = error
    this.wake?.()
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    try {
      for (;;) {
        const item = this.items.shift()
        if (item) {
          item.taken()
          yield item.value
          continue
        }
        if (this.ended) {
          if (this.error !== undefined) throw this.error
          return
        }
        await new Promise<void>((resolve) => (this.wake = resolve))
        this.wake = undefined
      }
    } finally {
      this.ended = true
      for (const item of this.items.splice(0)) item.refused(new Error('the reader has gone'))
    }
  }
}
