/**
 * The gateway's side of the embedder's worker thread. The thread (and the model in it) starts
 * on the first job, not at boot: most gateways and most tests never embed with it, and a
 * load costs about 0.5 s of CPU and 100 MB. A worker that dies fails its pending jobs and is
 * started again by the next one. A job not answered within the deadline of its start (the
 * model loaded, the jobs before it done) fails with 504, and its worker is terminated (however
 * it hangs) and started again for the jobs behind it.
 */
import { Worker } from 'node:worker_threads'
import { EmbedderError } from './embeddings-request.js'
import type { WorkerJob, WorkerReply, WorkerStarted } from './worker-messages.js'

type Pending = {
  job: WorkerJob
  timer?: NodeJS.Timeout
  resolve: (reply: WorkerReply & { ok: true }) => void
  reject: (err: Error) => void
}

export class EmbedderWorker {
  private worker: Worker | undefined
  private readonly pending = new Map<number, Pending>()
  private nextId = 1
  private hangNext = false

  constructor(private readonly deadlineMs: number) {}

  /** Token ids of every text, and their vectors unless one text is over `maxTokens` (then none). */
  embed(texts: string[], maxTokens: number): Promise<{ vectors: Float32Array[]; tokens: number[][] }> {
    return this.send({ kind: 'embed', texts, maxTokens })
  }

  tokenize(texts: string[]): Promise<number[][]> {
    return this.send({ kind: 'tokenize', texts }).then((r) => r.tokens)
  }

  /** Tests only: the next job hangs its worker (a busy loop) until the deadline ends it. */
  hangNextJob(): void {
    this.hangNext = true
  }

  async close(): Promise<void> {
    const worker = this.worker
    this.worker = undefined
    for (const p of this.pending.values()) clearTimeout(p.timer)
    if (worker) await worker.terminate()
  }

  private send(request: Omit<WorkerJob, 'id'>): Promise<WorkerReply & { ok: true }> {
    const job: WorkerJob = { id: this.nextId++, ...request, ...(this.hangNext ? { hang: true } : {}) }
    this.hangNext = false
    return new Promise((resolve, reject) => {
      this.pending.set(job.id, { job, resolve, reject })
      this.started().postMessage(job)
    })
  }

  /** A job past its deadline: it fails, its worker goes, the jobs behind it go to a new one. */
  private expire(id: number): void {
    const p = this.pending.get(id)
    if (!p) return
    this.pending.delete(id)
    p.reject(new EmbedderError(504, `the embedder did not answer within ${this.deadlineMs} ms; it was restarted`))
    const worker = this.worker
    this.worker = undefined
    worker?.removeAllListeners()
    void worker?.terminate()
    for (const other of this.pending.values()) this.started().postMessage(other.job)
  }

  private settle(id: number): Pending | undefined {
    const p = this.pending.get(id)
    this.pending.delete(id)
    if (p) clearTimeout(p.timer)
    return p
  }

  private started(): Worker {
    if (this.worker) return this.worker
    const worker = new Worker(new URL('./worker.js', import.meta.url))
    // An idle worker must not keep a stopping process alive.
    worker.unref()
    worker.on('message', (reply: WorkerReply | WorkerStarted) => {
      if ('started' in reply) {
        const p = this.pending.get(reply.id)
        if (p) p.timer = setTimeout(() => this.expire(reply.id), this.deadlineMs).unref()
        return
      }
      const p = this.settle(reply.id)
      if (!p) return
      if (reply.ok) p.resolve(reply)
      else p.reject(new Error(reply.error))
    })
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = undefined
      for (const id of [...this.pending.keys()]) this.settle(id)?.reject(err)
    }
    worker.on('error', fail)
    worker.on('exit', (code) => fail(new Error(`the embedder worker exited (code ${code})`)))
    this.worker = worker
    return worker
  }
}
