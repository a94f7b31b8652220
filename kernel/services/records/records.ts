/**
 * Usage records, written off the request path: `add` only appends to a buffer; a timer (or a
 * full buffer) writes the buffer to the store in one batch. Buffered records are flushed on
 * shutdown; records past retention are purged hourly. A store that is down costs nothing on
 * the request path: the batch stays buffered (up to a bound) and is retried. With a journal
 * (journal.ts), `add` also appends the record to a file first, so a crash loses none.
 */
import type { Logger } from '../../contract/log.js'
import type { Metrics } from '../../contract/metrics.js'
import type { RecordsTable } from '../stores/store.js'
import type {
  SpendScope,
  UsageDimension,
  UsagePeriod,
  UsageRecord,
  UsageRecords,
  UsageRow,
} from '../../contract/records.js'
import type { RecordJournal } from './journal.js'
import { describeCause } from '../../contract/log.js'

export interface RecordWriterOptions {
  flushMs: number
  batch: number
  retentionDays: number
  log: Logger
  metrics: Metrics
  now?: () => number
  /** Most records kept while the store is unreachable; beyond it the oldest are dropped (and counted). */
  maxBuffered?: number
  journal?: RecordJournal
}

const HOUR = 3_600_000
const DAY = 86_400_000

export class RecordWriter implements UsageRecords {
  private buffer: UsageRecord[] = []
  private writing: Promise<void> | undefined
  private readonly timer: NodeJS.Timeout
  private readonly purgeTimer: NodeJS.Timeout
  private closed = false
  private readonly now: () => number
  private readonly maxBuffered: number
  private readonly written
  private readonly dropped
  private readonly failures

  constructor(
    private readonly table: RecordsTable,
    private readonly options: RecordWriterOptions,
  ) {
    this.now = options.now ?? Date.now
    this.maxBuffered = options.maxBuffered ?? 100_000
    this.written = options.metrics.counter('sluice_records_written_total', 'Usage records written to the store.')
    this.dropped = options.metrics.counter(
      'sluice_records_dropped_total',
      'Usage records dropped because the store stayed unreachable and the buffer was full.',
    )
    this.failures = options.metrics.counter(
      'sluice_records_write_failures_total',
      'Batches of usage records the store refused (retried later).',
    )
    if (options.journal) {
      // A full or broken disk: the records still go in the batch, only unprotected from a crash.
      options.journal.onWriteFailure = (err, records) =>
        options.log.error('usage records not journaled', { records, cause: describeCause(err) })
    }
    this.timer = setInterval(() => void this.flush(), options.flushMs)
    this.timer.unref()
    this.purgeTimer = setInterval(() => void this.purge(), HOUR)
    this.purgeTimer.unref()
    void this.purge()
  }

  add(record: UsageRecord): void {
    if (this.closed) return
    this.options.journal?.append(record)
    this.buffer.push(record)
    if (this.buffer.length > this.maxBuffered) {
      const excess = this.buffer.length - this.maxBuffered
      this.buffer.splice(0, excess)
      this.dropped.inc({}, excess)
    }
    if (this.buffer.length >= this.options.batch && !this.writing) void this.flush()
  }

  ping(): Promise<void> {
    return this.table.ping()
  }

  durable(): Promise<void> | undefined {
    return this.options.journal?.whenWritten()
  }

  async flush(): Promise<void> {
    // One write at a time; a flush asked for during a write runs after it.
    while (this.writing) await this.writing
    if (this.buffer.length === 0) return
    const batch = this.buffer
    this.buffer = []
    const sealed = this.options.journal?.seal()
    this.writing = (async () => {
      try {
        await this.table.insert(batch)
        if (sealed !== undefined) this.options.journal!.written(sealed)
        this.written.inc({}, batch.length)
      } catch (err) {
        this.failures.inc()
        this.options.log.error('usage records not written; kept for the next attempt', {
          records: batch.length,
          cause: describeCause(err),
        })
        this.buffer = batch.concat(this.buffer)
      } finally {
        this.writing = undefined
      }
    })()
    await this.writing
  }

  async purge(): Promise<void> {
    try {
      const removed = await this.table.purge(this.now() - this.options.retentionDays * DAY)
      if (removed > 0)
        this.options.log.info('usage records purged', { removed, retention_days: this.options.retentionDays })
    } catch (err) {
      this.options.log.warn('usage records purge failed', { cause: describeCause(err) })
    }
  }

  async list(period: UsagePeriod, limit: number): Promise<UsageRecord[]> {
    await this.flush()
    return this.table.list(period, limit)
  }

  async summarize(period: UsagePeriod, by: UsageDimension): Promise<UsageRow[]> {
    await this.flush()
    return this.table.summarize(period, by)
  }

  spent(scope: SpendScope, since: number, until?: number): Promise<number> {
    return this.table.spent(scope, since, until)
  }

  /** Stops the timers and writes what is left. */
  async close(): Promise<void> {
    clearInterval(this.timer)
    clearInterval(this.purgeTimer)
    await this.flush()
    this.closed = true
    this.options.journal?.close()
  }
}
