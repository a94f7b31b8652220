/**
 * The gateway's side of the embedder's worker threads: a pool of `threads`, each running the
 * model alone (TensorFlow.js's WebAssembly backend is single-threaded in Node, so one thread a
 * core is how a batch uses the machine). A batch is cut into contiguous parts of similar length,
 * one a thread; each part is a job of its own. A thread (and the model in it) starts on its first
 * job, not at boot: most gateways and tests never embed, a load costs about 0.5 s of CPU and
 * 100 MB, and a batch under 2 × MIN_PART texts stays on one thread. A thread that dies fails
 * its pending jobs and is started again by the next one. A job not answered within the deadline
 * of its start (the model loaded, the jobs before it done) fails with 504, and its thread is
 * terminated (however it hangs) and started again for the jobs behind it. A thread without a
 * job for `idleMs` (ten times that for the first, which a query's one text uses) ends, and its
 * model (~90 MB of RSS) with it: the demo's first start idled at 354 MB, against 150 (performance.md).
 */
import { Worker } from 'node:worker_threads'
import { EmbedderError } from '../../../protocols/openai/vllm-embeddings-request.js'
import type { WorkerJob, WorkerReply, WorkerStarted } from './worker-messages.js'

/** Fewest texts a thread is given from a batch: below it a second model load costs more than it saves. */
const MIN_PART = 8

type Pending = {
  job: WorkerJob
  slot: number
  timer?: NodeJS.Timeout
  resolve: (reply: WorkerReply & { ok: true }) => void
  reject: (err: Error) => void
}

export class EmbedderWorker {
  private readonly workers: (Worker | undefined)[]
  private readonly idle: (NodeJS.Timeout | undefined)[]
  private readonly pending = new Map<number, Pending>()
  private nextId = 1
  private hangNext = false

  constructor(
    private readonly deadlineMs: number,
    threads = 1,
    private readonly idleMs = 60_000,
  ) {
    this.workers = Array.from({ length: threads }, () => undefined)
    this.idle = this.workers.map(() => undefined)
  }

  /** Token ids of every text, and their vectors unless one text is over `maxTokens` (then none). */
  async embed(texts: string[], maxTokens: number): Promise<{ vectors: Float32Array[]; tokens: number[][] }> {
    const parts = splitEvenly(texts, Math.min(this.workers.length, Math.floor(texts.length / MIN_PART)))
    const replies = await Promise.all(parts.map((part) => this.send({ kind: 'embed', texts: part, maxTokens })))
    const vectors = replies.some((r) => r.vectors.length === 0) ? [] : replies.flatMap((r) => r.vectors)
    return { vectors, tokens: replies.flatMap((r) => r.tokens) }
  }

  tokenize(texts: string[]): Promise<number[][]> {
    return this.send({ kind: 'tokenize', texts }).then((r) => r.tokens)
  }

  /** Tests only: the next job hangs its worker (a busy loop) until the deadline ends it. */
  hangNextJob(): void {
    this.hangNext = true
  }

  /** Tests only: the threads running now. */
  running(): number {
    return this.workers.filter(Boolean).length
  }

  async close(): Promise<void> {
    const workers = this.workers.splice(0, this.workers.length, ...this.workers.map(() => undefined))
    for (const p of this.pending.values()) clearTimeout(p.timer)
    this.idle.forEach(clearTimeout)
    await Promise.all(workers.map((w) => w?.terminate()))
  }

  /** To the thread with the fewest jobs pending (the first, among idle ones); its idle timer stops before it starts. */
  private send(request: Omit<WorkerJob, 'id'>): Promise<WorkerReply & { ok: true }> {
    const job: WorkerJob = { id: this.nextId++, ...request, ...(this.hangNext ? { hang: true } : {}) }
    this.hangNext = false
    const load = this.workers.map(() => 0)
    for (const p of this.pending.values()) load[p.slot]!++
    const slot = load.indexOf(Math.min(...load))
    clearTimeout(this.idle[slot])
    return new Promise((resolve, reject) => {
      this.pending.set(job.id, { job, slot, resolve, reject })
      this.started(slot).postMessage(job)
    })
  }

  /** Ends the thread in `slot`, its listeners first: its exit fails no job (none, or sent again elsewhere). */
  private retire(slot: number): void {
    const worker = this.workers[slot]
    this.workers[slot] = undefined
    worker?.removeAllListeners()
    void worker?.terminate()
  }

  /** A job past its deadline: it fails, its thread goes, the jobs behind it go to a new one. */
  private expire(id: number): void {
    const p = this.pending.get(id)
    if (!p) return
    this.pending.delete(id)
    p.reject(new EmbedderError(504, `the embedder did not answer within ${this.deadlineMs} ms; it was restarted`))
    this.retire(p.slot)
    for (const other of this.pending.values()) if (other.slot === p.slot) this.started(p.slot).postMessage(other.job)
  }

  private settle(id: number): Pending | undefined {
    const p = this.pending.get(id)
    this.pending.delete(id)
    if (p) clearTimeout(p.timer)
    return p
  }

  private started(slot: number): Worker {
    const running = this.workers[slot]
    if (running) return running
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
      if (this.idleMs > 0 && ![...this.pending.values()].some((o) => o.slot === slot))
        this.idle[slot] = setTimeout(() => this.retire(slot), this.idleMs * (slot > 0 ? 1 : 10)).unref()
      if (reply.ok) p.resolve(reply)
      else p.reject(new Error(reply.error))
    })
    const fail = (err: Error) => {
      if (this.workers[slot] === worker) this.workers[slot] = undefined
      for (const [id, p] of [...this.pending]) if (p.slot === slot) this.settle(id)?.reject(err)
    }
    worker.on('error', fail)
    worker.on('exit', (code) => fail(new Error(`the embedder worker exited (code ${code})`)))
    this.workers[slot] = worker
    return worker
  }
}

/** `texts` in at most `n` contiguous parts of about equal total length (a thread's work is about linear in it). */
export function splitEvenly(texts: string[], n: number): string[][] {
  const total = texts.reduce((sum, t) => sum + t.length, 0)
  const parts: string[][] = []
  let done = 0
  for (const text of texts) {
    if (parts.length === 0 || (parts.length < n && done >= (total * parts.length) / n)) parts.push([])
    parts.at(-1)!.push(text)
    done += text.length
  }
  return parts
}
