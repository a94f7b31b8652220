/**
 * Large whole replies are read on a worker thread: an 80 MB completion (16 choices of 4,000
 * tokens with 20 `top_logprobs` each, which a model server may well answer) took the event
 * loop 2 to 7 s to parse, normalize and serialize again, and every other client waited. Below
 * `LARGE_BODY` (protocols/http/byte-sink.ts) the gateway's thread does it, as parsing there costs less than the hand-off.
 *
 * One worker per process (the plugin's `open` state), started by the first large reply and
 * ended after a minute without one; a worker that dies fails the replies it held (502) and the
 * next large reply starts another.
 */
import { Worker } from 'node:worker_threads'
import type { Usage } from '../openai-normalize.js'
import type { ReadJob, ReadReply } from './messages.js'
import { LARGE_BODY } from '../../../protocols/http/byte-sink.js'

const WORKER_URL = new URL('./worker.js', import.meta.url)
const IDLE_MS = 60_000

export interface ReadCompletion {
  readonly usage: Usage | undefined
  readonly model: string | undefined
  /** What goes to the client (UTF-8): the server's bytes, or the normalized reply's. */
  readonly bytes: Buffer
}

type Pending = { resolve(read: ReadCompletion): void; reject(err: Error): void }

export class LargeReplies {
  private worker: Worker | undefined
  private idle: NodeJS.Timeout | undefined
  private readonly pending = new Map<number, Pending>()
  private nextId = 1

  /**
   * Reads `bytes` on the worker. A buffer of its own (a large reply's: UpstreamText.bytes) is
   * moved there, not copied, and `bytes` is empty from then on; any other is copied first.
   */
  read(bytes: Buffer): Promise<ReadCompletion> {
    const worker = this.started()
    const id = this.nextId++
    const own =
      bytes.byteOffset === 0 && bytes.buffer.byteLength >= LARGE_BODY && !(bytes.buffer instanceof SharedArrayBuffer)
    const buffer = own ? (bytes.buffer as ArrayBuffer) : new Uint8Array(bytes).buffer
    // Held by the process only while it reads: an idle worker never keeps a tool or a test alive.
    worker.ref()
    return new Promise<ReadCompletion>((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      worker.postMessage({ id, buffer, length: bytes.length } satisfies ReadJob, [buffer])
    })
  }

  async close(): Promise<void> {
    clearTimeout(this.idle)
    await this.worker?.terminate()
  }

  private started(): Worker {
    clearTimeout(this.idle)
    if (this.worker) return this.worker
    const worker = new Worker(WORKER_URL)
    worker.on('message', (reply: ReadReply) => this.answer(reply))
    worker.on('error', (err) => this.end(worker, err))
    worker.on('exit', () => this.end(worker, new Error('the large-reply worker stopped')))
    this.worker = worker
    return worker
  }

  private answer(reply: ReadReply): void {
    const job = this.pending.get(reply.id)
    if (!job) return
    this.pending.delete(reply.id)
    if (reply.ok)
      job.resolve({ usage: reply.usage, model: reply.model, bytes: Buffer.from(reply.buffer, 0, reply.length) })
    else job.reject(new SyntaxError(reply.message))
    if (this.pending.size > 0) return
    this.worker?.unref()
    this.idle = setTimeout(() => void this.close(), IDLE_MS).unref()
  }

  /** The worker is gone: what it held fails, and the next large reply starts another. */
  private end(worker: Worker, err: Error): void {
    if (this.worker !== worker) return
    this.worker = undefined
    for (const job of this.pending.values()) job.reject(err)
    this.pending.clear()
  }
}
