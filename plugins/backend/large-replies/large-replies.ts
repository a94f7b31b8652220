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

const WORKER_URL = new URL('./worker.js', import.meta.url)
const IDLE_MS = 60_000

export interface ReadCompletion {
  readonly usage: Usage | undefined
  readonly model: string | undefined
  /** What goes to the client: the server's text, or the normalized one. */
  readonly text: string
}

type Pending = { text: string; resolve(read: ReadCompletion): void; reject(err: Error): void }

export class LargeReplies {
  private worker: Worker | undefined
  private idle: NodeJS.Timeout | undefined
  private readonly pending = new Map<number, Pending>()
  private nextId = 1

  read(text: string): Promise<ReadCompletion> {
    const worker = this.started()
    const id = this.nextId++
    // Held by the process only while it reads: an idle worker never keeps a tool or a test alive.
    worker.ref()
    return new Promise<ReadCompletion>((resolve, reject) => {
      this.pending.set(id, { text, resolve, reject })
      worker.postMessage({ id, text } satisfies ReadJob)
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
    if (reply.ok) job.resolve({ usage: reply.usage, model: reply.model, text: reply.text ?? job.text })
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
