/**
 * Backpressure of one WebSocket: a slow reader never makes the gateway buffer without bound.
 * A stream sends an event, and while more than `highWaterBytes` wait for the reader it stops
 * pulling from its source (so the upstream read pauses too) until the socket drains. Past
 * `maxBufferedBytes` (whole replies add up even when streams pause), or when a paused stream
 * waits longer than `drainTimeoutMs`, the socket is closed with 1008: a reader too slow.
 */
import type { Duplex } from 'node:stream'
import { WebSocket } from 'ws'
import { CLOSE } from '../../../protocols/websocket/envelope.js'

export interface FlowLimits {
  readonly highWaterBytes: number
  readonly maxBufferedBytes: number
  readonly drainTimeoutMs: number
}

export class SocketFlow {
  private corked = false

  constructor(
    private readonly ws: WebSocket,
    private readonly raw: Duplex,
    private readonly limits: FlowLimits,
  ) {}

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN
  }

  /** Sends one message; false when the socket is gone (or has just been closed as too slow). */
  send(text: string): boolean {
    if (!this.open) return false
    // Messages sent in the same turn of the event loop (one upstream read) leave in one write,
    // as the SSE writer joins its events: a frame per syscall would cost more than the stream.
    if (!this.corked) {
      this.corked = true
      this.raw.cork()
      setImmediate(() => {
        this.corked = false
        this.raw.uncork()
      })
    }
    this.ws.send(text)
    if (this.ws.bufferedAmount <= this.limits.maxBufferedBytes) return true
    this.tooSlow()
    return false
  }

  /** Whether a stream should wait before it reads its next event. */
  get over(): boolean {
    return this.ws.bufferedAmount > this.limits.highWaterBytes
  }

  /** Resolves true once the reader has caught up below the high-water mark; false when the socket closed meanwhile. */
  async drained(): Promise<boolean> {
    const deadline = Date.now() + this.limits.drainTimeoutMs
    while (this.open && this.over) {
      const left = deadline - Date.now()
      if (left <= 0) {
        this.tooSlow()
        return false
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer)
          this.raw.off('drain', done)
          this.ws.off('close', done)
          resolve()
        }
        const timer = setTimeout(done, left)
        this.raw.on('drain', done)
        this.ws.on('close', done)
      })
    }
    return this.open
  }

  private tooSlow(): void {
    if (this.ws.readyState !== WebSocket.OPEN) return
    this.ws.close(CLOSE.policy, 'reader too slow')
    // The close frame waits behind the unread bytes: a reader that never reads is cut.
    setTimeout(() => this.ws.terminate(), 1000).unref()
  }
}

/**
 * Pings every `intervalMs`; a socket that has not answered the previous ping by the next one
 * is a dead peer (a cable pulled, a process frozen) and is terminated, which aborts its
 * requests. Returns the function that stops it.
 */
export function heartbeat(ws: WebSocket, intervalMs: number): () => void {
  let alive = true
  const onPong = () => (alive = true)
  ws.on('pong', onPong)
  const timer = setInterval(() => {
    if (!alive) return ws.terminate()
    alive = false
    ws.ping()
  }, intervalMs)
  timer.unref()
  return () => {
    clearInterval(timer)
    ws.off('pong', onPong)
  }
}
