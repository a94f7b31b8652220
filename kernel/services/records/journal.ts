/**
 * The write-ahead journal of usage records (the embedded default): each record is appended,
 * as one JSON line, to a file in the data folder when it is made, before the record waits for
 * its batch. The lines of one event-loop turn go out in one synchronous write(2), at the end of
 * the turn (setImmediate); a reply whose record waits for it is held until then
 * (`whenWritten`, awaited by the kernel's transports before they write a reply), so a reply's
 * bytes never leave before its record is in the kernel's page cache. That survives the process
 * being killed (kill -9, out of memory), not the host losing power, and costs no disk wait;
 * one write a turn instead of one a record takes a write(2) off most requests under load.
 *
 * Files are segments `records-<n>.journal`. Each batch seals the open segment, so a batch is
 * exactly the records of the sealed segments (a failed batch goes back to the buffer and is
 * sealed again with the next); once the store has the batch, they are deleted. At start the
 * segments left by a crash are replayed into the store, skipping records a batch had already
 * written just before it.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { RecordsTable } from '../stores/store.js'
import type { UsageRecord } from '../../contract/records.js'

const NAME = /^records-(\d+)\.journal$/

export class RecordJournal {
  private fd: number
  private open: number
  private appended = 0

  private constructor(
    private readonly dir: string,
    first: number,
  ) {
    this.open = first
    this.fd = fs.openSync(this.file(first), 'a')
  }

  /** Replays what a previous run left into `table`, then opens a new segment. Returns how many it replayed. */
  static async open(dir: string, table: RecordsTable): Promise<{ journal: RecordJournal; replayed: number }> {
    fs.mkdirSync(dir, { recursive: true })
    const left = segments(dir)
    const records: UsageRecord[] = []
    for (const n of left) {
      for (const line of fs.readFileSync(path.join(dir, `records-${n}.journal`), 'utf8').split('\n')) {
        // A line cut by the crash is the record of a reply that had not ended: nothing to replay.
        if (!line.endsWith('}')) continue
        try {
          records.push(JSON.parse(line) as UsageRecord)
        } catch {
          continue
        }
      }
    }
    const replayed = records.length > 0 ? await table.insertMissing(records) : 0
    for (const n of left) fs.rmSync(path.join(dir, `records-${n}.journal`), { force: true })
    return { journal: new RecordJournal(dir, (left.at(-1) ?? 0) + 1), replayed }
  }

  private file(n: number): string {
    return path.join(this.dir, `records-${n}.journal`)
  }

  /** Lines of this turn not yet written, and what their write resolves. */
  private pending: string[] = []
  private pendingWritten: Promise<void> = Promise.resolve()
  private release: () => void = () => undefined
  /** Told of a write that failed (a full or broken disk): its records stay in the batch, unprotected. */
  onWriteFailure: (err: unknown, records: number) => void = () => undefined

  append(record: UsageRecord): void {
    this.pending.push(JSON.stringify(record))
    if (this.pending.length === 1) {
      this.pendingWritten = new Promise((resolve) => (this.release = resolve))
      setImmediate(this.writePending)
    }
  }

  /** Resolves once every line appended so far is in the file (or its write failed); undefined when none waits. */
  whenWritten(): Promise<void> | undefined {
    return this.pending.length > 0 ? this.pendingWritten : undefined
  }

  private readonly writePending = (): void => {
    if (this.pending.length === 0) return
    const lines = this.pending
    this.pending = []
    try {
      fs.writeSync(this.fd, `${lines.join('\n')}\n`)
      this.appended += lines.length
    } catch (err) {
      this.onWriteFailure(err, lines.length)
    } finally {
      this.release()
    }
  }

  /** Closes the open segment (when it holds records) and returns the newest sealed one: the next batch is in segments up to it. */
  seal(): number {
    this.writePending()
    if (this.appended > 0) {
      fs.closeSync(this.fd)
      this.open++
      this.fd = fs.openSync(this.file(this.open), 'a')
      this.appended = 0
    }
    return this.open - 1
  }

  /** The store has every record of segments up to `n`. */
  written(n: number): void {
    for (const s of segments(this.dir)) if (s <= n) fs.rmSync(this.file(s), { force: true })
  }

  /** After the last flush: the open segment is empty unless records came after it. */
  close(): void {
    this.writePending()
    fs.closeSync(this.fd)
    if (this.appended === 0) fs.rmSync(this.file(this.open), { force: true })
  }
}

function segments(dir: string): number[] {
  return fs
    .readdirSync(dir)
    .map((f) => NAME.exec(f)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b)
}
