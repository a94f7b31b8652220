/**
 * The reader pool: documents are read on worker threads, never on the event loop that serves
 * every client. Each worker runs with a heap limit (`memory_mb`, V8's `resourceLimits`) and
 * each document with a wall-clock deadline (`timeout_ms`); a worker past its deadline, out of
 * heap or crashed is ended and a new one is started for the next document, so one hostile
 * document costs at most one worker for `timeout_ms` and answers a clear 4xx.
 *
 * At most `workers` threads, started at the first document and ended after a minute idle (so
 * that a gateway that reads nothing holds none, and their memory is given back). Documents
 * beyond them wait in order; one whose client has gone is dropped, or its worker ended.
 */
import { Worker } from 'node:worker_threads'
import type { ChunkingOptions } from '../chunker.js'
import type { Chunk } from '../model.js'
import { overLimit, type ReaderLimits } from './limits.js'
import type { DocumentBytes } from './read-document.js'
import { errorOf, runTask, type ReaderTask, type ReadOutcome, type Refusal } from './reader-task.js'

/** How the knowledge base and chat uploads have their documents read. */
export interface DocumentReaders {
  readonly limits: ReaderLimits
  /** The chunks of a document for the knowledge base, and each one's embedding inputs (windows of `windowTokens`; 0 = the chunk). */
  chunks(
    doc: DocumentBytes,
    chunking: ChunkingOptions,
    windowTokens: number,
    signal?: AbortSignal,
  ): Promise<{ chunks: Chunk[]; inputs: string[][] }>
  /** The text of a document for a prompt, and its tokens. */
  text(doc: DocumentBytes, signal?: AbortSignal): Promise<{ text: string; tokens: number }>
  close(): Promise<void>
}

abstract class Readers implements DocumentReaders {
  constructor(readonly limits: ReaderLimits) {}
  protected abstract run(task: ReaderTask, signal?: AbortSignal): Promise<ReadOutcome>
  async chunks(doc: DocumentBytes, chunking: ChunkingOptions, windowTokens: number, signal?: AbortSignal) {
    const out = await this.run({ want: 'chunks', doc, limits: this.limits, chunking, windowTokens }, signal)
    return { chunks: out.chunks ?? [], inputs: out.inputs ?? [] }
  }
  async text(doc: DocumentBytes, signal?: AbortSignal): Promise<{ text: string; tokens: number }> {
    const out = await this.run({ want: 'text', doc, limits: this.limits }, signal)
    return { text: out.text ?? '', tokens: out.tokens ?? 0 }
  }
  abstract close(): Promise<void>
}

/** On the calling thread: for unit tests and tools, never for the gateway's requests. */
export class InlineReaders extends Readers {
  protected run(task: ReaderTask): Promise<ReadOutcome> {
    return runTask(task)
  }
  async close(): Promise<void> {}
}

const WORKER_URL = new URL('./reader-worker.js', import.meta.url)
const IDLE_MS = 60_000

interface Job {
  readonly id: number
  readonly task: ReaderTask
  readonly signal?: AbortSignal
  resolve(outcome: ReadOutcome): void
  reject(err: Error): void
}

interface Slot {
  readonly worker: Worker
  job?: Job
  deadline?: NodeJS.Timeout
  idle?: NodeJS.Timeout
}

export class ReaderPool extends Readers {
  private readonly slots = new Set<Slot>()
  private readonly queue: Job[] = []
  private nextId = 1
  private closed = false

  protected run(task: ReaderTask, signal?: AbortSignal): Promise<ReadOutcome> {
    if (this.closed) return Promise.reject(new Error('the reader pool is closed'))
    return new Promise<ReadOutcome>((resolve, reject) => {
      const onAbort = () => this.abandon(job)
      const settled = () => signal?.removeEventListener('abort', onAbort)
      const job: Job = {
        id: this.nextId++,
        task,
        signal,
        resolve: (outcome) => (settled(), resolve(outcome)),
        reject: (err) => (settled(), reject(err)),
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.queue.push(job)
      this.dispatch()
    })
  }

  /** Threads running now (for tests and metrics). */
  get size(): number {
    return this.slots.size
  }

  async close(): Promise<void> {
    this.closed = true
    for (const job of this.queue.splice(0)) job.reject(new Error('the reader pool is closed'))
    await Promise.all([...this.slots].map((s) => this.end(s, new Error('the reader pool is closed'))))
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = [...this.slots].find((s) => !s.job)
      if (!slot) {
        if (this.slots.size >= this.limits.workers) return
        slot = this.start()
      }
      const job = this.queue.shift()!
      if (job.signal?.aborted) continue
      clearTimeout(slot.idle)
      slot.job = job
      slot.worker.ref()
      slot.deadline = setTimeout(() => {
        const ms = this.limits.timeoutMs
        void this.end(slot, overLimit('timeoutMs', ms, `the document took longer than ${ms} ms to read`))
      }, this.limits.timeoutMs)
      slot.worker.postMessage({ id: job.id, task: job.task })
    }
  }

  private start(): Slot {
    const worker = new Worker(WORKER_URL, {
      resourceLimits: { maxOldGenerationSizeMb: this.limits.memoryMb, stackSizeMb: 4 },
      stdout: false,
      stderr: false,
    })
    const slot: Slot = { worker }
    this.slots.add(slot)
    worker.on(
      'message',
      (m: { id: number; ok: true; result: ReadOutcome } | { id: number; ok: false; refusal: Refusal }) => {
        const job = slot.job
        if (!job || job.id !== m.id) return
        clearTimeout(slot.deadline)
        slot.job = undefined
        worker.unref()
        if (m.ok) job.resolve(m.result)
        else job.reject(errorOf(m.refusal))
        slot.idle = setTimeout(() => void this.end(slot), IDLE_MS)
        slot.idle.unref()
        this.dispatch()
      },
    )
    worker.on('error', (err: Error & { code?: string }) => {
      const mb = this.limits.memoryMb
      void this.end(
        slot,
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? overLimit('memoryMb', mb, `reading the document needed more than ${mb} MiB of memory`)
          : errorOf({ status: 422, message: `the document could not be read: ${err.message.slice(0, 200)}` }),
      )
    })
    worker.on('exit', () => void this.end(slot, errorOf({ status: 422, message: 'the document could not be read' })))
    return slot
  }

  /** Ends a worker; the job it held, if any, fails with `why`, and the next job gets a new worker. */
  private async end(slot: Slot, why?: Error): Promise<void> {
    if (!this.slots.delete(slot)) return
    clearTimeout(slot.deadline)
    clearTimeout(slot.idle)
    const job = slot.job
    slot.job = undefined
    if (job) job.reject(why ?? new Error('the reader worker ended'))
    await slot.worker.terminate()
    if (!this.closed) this.dispatch()
  }

  /** The client went: a waiting job leaves the line; a running one has its worker ended. */
  private abandon(job: Job): void {
    const at = this.queue.indexOf(job)
    if (at >= 0) {
      this.queue.splice(at, 1)
      job.reject(new Error('the client went away'))
      return
    }
    const slot = [...this.slots].find((s) => s.job === job)
    if (slot) void this.end(slot, new Error('the client went away'))
  }
}
