/**
 * The gateway's side of the records' writer thread (sqlite-records-worker.ts). The thread
 * starts on the first batch, not when the store opens: most tests and CLI commands that open
 * the store never write a record. It keeps the process alive only while a batch is on its way
 * (a graceful stop waits for the last batch; an idle thread does not hold a stopping process).
 * A batch resolves once its transaction has committed and rejects when it failed: the record
 * writer then keeps it for the next attempt. A thread that dies fails the batches it held and is
 * started again by the next one.
 */
import { Worker } from 'node:worker_threads'
import type { UsageRecord } from '../../contract/records.js'
import type { RecordsJob, RecordsReply, RecordsWorkerData } from './sqlite-records-messages.js'

const YOUNG_GENERATION_MB = 4

type Pending = { resolve: (inserted: number) => void; reject: (err: Error) => void }
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never

export class RecordsWriterThread {
  private worker: Worker | undefined
  private readonly pending = new Map<number, Pending>()
  private nextId = 1
  private closed = false

  constructor(private readonly data: RecordsWorkerData) {}

  async insert(records: readonly UsageRecord[]): Promise<void> {
    if (records.length > 0) await this.send({ kind: 'insert', records })
  }

  insertMissing(records: readonly UsageRecord[]): Promise<number> {
    return this.send({ kind: 'insertMissing', records })
  }

  /** Lets the thread finish the batches it has, closes its connection and ends it. Batches sent after are refused. */
  async close(): Promise<void> {
    if (this.closed) return
    const worker = this.worker
    const last = worker ? this.send({ kind: 'close' }) : undefined
    this.closed = true
    await last?.catch(() => undefined)
    this.worker = undefined
    if (worker) await worker.terminate()
  }

  private send(job: WithoutId<RecordsJob>): Promise<number> {
    if (this.closed) return Promise.reject(new Error('the store is closed'))
    const id = this.nextId++
    return new Promise<number>((resolve, reject) => {
      const worker = this.started()
      if (this.pending.size === 0) worker.ref()
      this.pending.set(id, { resolve, reject })
      worker.postMessage({ id, ...job } as RecordsJob)
    })
  }

  private settled(worker: Worker): void {
    if (this.pending.size === 0) worker.unref()
  }

  private started(): Worker {
    if (this.worker) return this.worker
    // A small young generation: the thread's garbage is a batch at a time, and the server's
    // --min-semi-space-size=16 would otherwise give it a 48 MB one too (+28 MB RSS, measured).
    const worker = new Worker(new URL('./sqlite-records-worker.js', import.meta.url), {
      workerData: this.data,
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    })
    worker.unref()
    worker.on('message', (reply: RecordsReply) => {
      const p = this.pending.get(reply.id)
      this.pending.delete(reply.id)
      this.settled(worker)
      if (!p) return
      if (reply.ok) p.resolve(reply.inserted)
      else
        p.reject(
          Object.assign(new Error(reply.message), { name: reply.name, ...(reply.code ? { code: reply.code } : {}) }),
        )
    })
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = undefined
      for (const p of this.pending.values()) p.reject(err)
      this.pending.clear()
    }
    worker.on('error', fail)
    worker.on('exit', (code) => fail(new Error(`the records writer thread exited (code ${code})`)))
    this.worker = worker
    return worker
  }
}
