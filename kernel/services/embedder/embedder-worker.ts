/**
 * The gateway's side of the embedder's worker thread. The thread (and the model in it) starts
 * on the first job, not at boot: most gateways and most tests never embed with it, and a
 * load costs about 0.5 s of CPU and 100 MB. A worker that dies fails its pending jobs and is
 * started again by the next one.
 */
import { Worker } from 'node:worker_threads'
import type { WorkerJob, WorkerReply } from './worker-messages.js'

type Pending = { resolve: (reply: WorkerReply & { ok: true }) => void; reject: (err: Error) => void }

export class EmbedderWorker {
  private worker: Worker | undefined
  private readonly pending = new Map<number, Pending>()
  private nextId = 1

  /** Token ids of every text, and their vectors unless one text is over `maxTokens` (then none). */
  embed(texts: string[], maxTokens: number): Promise<{ vectors: Float32Array[]; tokens: number[][] }> {
    return this.send({ kind: 'embed', texts, maxTokens })
  }

  tokenize(texts: string[]): Promise<number[][]> {
    return this.send({ kind: 'tokenize', texts }).then((r) => r.tokens)
  }

  async close(): Promise<void> {
    const worker = this.worker
    this.worker = undefined
    if (worker) await worker.terminate()
  }

  private send(job: Omit<WorkerJob, 'id'>): Promise<WorkerReply & { ok: true }> {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      this.started().postMessage({ id, ...job } satisfies WorkerJob)
    })
  }

  private started(): Worker {
    if (this.worker) return this.worker
    const worker = new Worker(new URL('./worker.js', import.meta.url))
    // An idle worker must not keep a stopping process alive.
    worker.unref()
    worker.on('message', (reply: WorkerReply) => {
      const p = this.pending.get(reply.id)
      this.pending.delete(reply.id)
      if (!p) return
      if (reply.ok) p.resolve(reply)
      else p.reject(new Error(reply.error))
    })
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = undefined
      for (const p of this.pending.values()) p.reject(err)
      this.pending.clear()
    }
    worker.on('error', fail)
    worker.on('exit', (code) => fail(new Error(`the embedder worker exited (code ${code})`)))
    this.worker = worker
    return worker
  }
}
