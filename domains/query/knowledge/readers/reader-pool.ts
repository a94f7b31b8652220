/**
 * The reader pool: documents are read in child processes, never on the event loop that serves
 * every client (reader-process.ts, and why a process rather than a thread). Each process runs
 * with a heap limit (`memory_mb`, V8's `--max-old-space-size`) and each document with a
 * wall-clock deadline (`timeout_ms`, the start of a process included); a process past its
 * deadline, out of heap or crashed is killed, its slot freed, and a new one is started for the
 * next document, so one hostile document costs at most one process for `timeout_ms` and
 * answers a clear 4xx.
 *
 * At most `workers` processes, started at the first document. One is kept warm for IDLE_MS
 * after its last document (a bulk load or a burst of uploads pays the start once), and ended
 * at once when a document left it holding more than RETIRE_RSS_MB, so that its memory goes
 * back to the system. Documents beyond them wait in order; one whose client
 * has gone is dropped, or its process killed.
 */
import type { ChildProcess } from 'node:child_process'
import type { Socket } from 'node:net'
import type { ChunkingOptions } from '../chunker.js'
import type { Chunk } from '../model.js'
import { overLimit, type ReaderLimits } from './limits.js'
import type { DocumentBytes } from './read-document.js'
import { endedBecause, forkReader, watchOutOfMemory, type FromReader, type ToReader } from './reader-process.js'
import { errorOf, runTask, type ReaderTask, type ReadOutcome } from './reader-task.js'

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

/**
 * How long a process is kept after its last document, as long as the reader threads were kept:
 * a start costs its Node (~50 MB, ~0.15 s), the contract (~0.1 s), and at the first document the
 * parser and the tokenizer (~40 MB, 0.1-0.3 s). A small upload took 0.6-0.9 s after a quiet
 * spell against ~15 ms warm (loaded machine, docs/fuzzing.md); an idle reader holds ~90 MB.
 */
const IDLE_MS = 60_000
/**
 * A process left holding more than this after a document is ended, not kept warm (one that has
 * read a Markdown and an HTML document and counted tokens holds ~90 MB).
 */
const RETIRE_RSS_MB = 200

interface Job {
  readonly id: number
  readonly task: ReaderTask
  readonly signal?: AbortSignal
  resolve(outcome: ReadOutcome): void
  reject(err: Error): void
}

interface Slot {
  readonly child: ChildProcess
  /** Resolves when the process has exited (or could not start). */
  readonly exited: Promise<void>
  /** It has said it listens: jobs are sent from then on. */
  ready: boolean
  job?: Job
  deadline?: NodeJS.Timeout
  idle?: NodeJS.Timeout
}

export interface ReaderPoolOptions {
  /** How long a process is kept after its last document; IDLE_MS (a test gives its own). */
  readonly idleMs?: number
}

export class ReaderPool extends Readers {
  private readonly slots = new Set<Slot>()
  private readonly queue: Job[] = []
  private readonly idleMs: number
  private nextId = 1
  private closed = false

  constructor(limits: ReaderLimits, options: ReaderPoolOptions = {}) {
    super(limits)
    this.idleMs = options.idleMs ?? IDLE_MS
  }

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

  /** Reader processes running now (for tests and metrics). */
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
      hold(slot.child, true)
      slot.deadline = setTimeout(() => {
        const ms = this.limits.timeoutMs
        void this.end(slot, overLimit('timeoutMs', ms, `the document took longer than ${ms} ms to read`))
      }, this.limits.timeoutMs)
      if (slot.ready) this.send(slot, job)
    }
  }

  /** Hands the job to its process; one that has not said it is ready yet gets it when it does. */
  private send(slot: Slot, job: Job): void {
    const message: ToReader = { id: job.id, task: job.task }
    slot.child.send(message, (err) => {
      if (err && slot.job === job)
        void this.end(slot, errorOf({ status: 422, message: 'the document could not be read' }))
    })
  }

  private start(): Slot {
    const child = forkReader(this.limits)
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve())
      child.once('error', () => resolve())
    })
    const slot: Slot = { child, exited, ready: false }
    this.slots.add(slot)
    const outOfMemory = watchOutOfMemory(child)
    child.on('message', (m: FromReader) => {
      if ('ready' in m) {
        slot.ready = true
        if (slot.job) this.send(slot, slot.job)
        return
      }
      const job = slot.job
      if (!job || job.id !== m.id) return
      clearTimeout(slot.deadline)
      slot.job = undefined
      hold(child, false)
      if (m.ok) job.resolve(m.result)
      else job.reject(errorOf(m.refusal))
      if (m.rss > RETIRE_RSS_MB * 1024 * 1024) void this.end(slot)
      else {
        slot.idle = setTimeout(() => void this.end(slot), this.idleMs)
        slot.idle.unref()
        this.dispatch()
      }
    })
    // Could not be started (or signalled), or ended before it listened: not the document's fault.
    const unstarted = (why: string) =>
      errorOf({ status: 503, message: `the document readers could not start (${why}); try again later` })
    child.on('error', (err: NodeJS.ErrnoException) => void this.end(slot, unstarted(err.code ?? err.message)))
    // Ended on its own: out of heap, or a crash on this document. 'close' comes after stderr has been read whole.
    child.on('close', (code, signal) => {
      void this.end(slot, slot.ready ? endedBecause(outOfMemory(), this.limits) : unstarted(`exit ${code ?? signal}`))
    })
    return slot
  }

  /** Ends a process; the job it held, if any, fails with `why`, and the next job gets a new process. */
  private async end(slot: Slot, why?: Error): Promise<void> {
    if (!this.slots.delete(slot)) return
    clearTimeout(slot.deadline)
    clearTimeout(slot.idle)
    const job = slot.job
    slot.job = undefined
    if (job) job.reject(why ?? new Error('the reader process ended'))
    if (slot.child.exitCode === null && slot.child.signalCode === null) {
      hold(slot.child, true) // until it has exited: an idle process's handles were let go
      slot.child.kill('SIGKILL')
    }
    await slot.exited
    if (!this.closed) this.dispatch()
  }

  /** The client went: a waiting job leaves the line; a running one has its process killed. */
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

/** A process at work keeps the gateway's event loop alive; an idle one (its channel and stderr too) does not. */
function hold(child: ChildProcess, busy: boolean): void {
  const handles: Array<{ ref(): unknown; unref(): unknown } | null | undefined> = [
    child,
    child.channel,
    child.stderr as Socket | null, // a pipe: a socket
  ]
  for (const h of handles) busy ? h?.ref() : h?.unref()
}
