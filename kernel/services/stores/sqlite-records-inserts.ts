/**
 * The INSERTs of usage records into the embedded store's table, prepared on one connection.
 * The records' writer thread (sqlite-records-worker.ts) runs them on a connection of its own.
 */
import type Database from 'better-sqlite3'
import type { UsageRecord } from '../../contract/records.js'
import { recordColumns, recordValues } from './sql.js'

export interface RecordInserts {
  /** Every record, in one transaction. */
  insert(records: readonly UsageRecord[]): void
  /** Those not in the table yet (same start, request id and route), in one transaction; returns how many. */
  insertMissing(records: readonly UsageRecord[]): number
}

/** Rows go in groups of ROWS per statement: far fewer crossings into SQLite than one per row. */
const ROWS = 64

export function prepareRecordInserts(db: Database.Database): RecordInserts {
  const row = `(${recordColumns.map(() => '?').join(', ')})`
  const insertRecord = db.prepare(`INSERT INTO usage_records (${recordColumns.join(', ')}) VALUES ${row}`)
  const insertRows = db.prepare(
    `INSERT INTO usage_records (${recordColumns.join(', ')}) VALUES ${Array.from({ length: ROWS }, () => row).join(', ')}`,
  )
  const insert = db.transaction((records: readonly UsageRecord[]) => {
    let i = 0
    for (; i + ROWS <= records.length; i += ROWS) insertRows.run(records.slice(i, i + ROWS).flatMap(recordValues))
    for (; i < records.length; i++) insertRecord.run(recordValues(records[i]!))
  })
  const present = db.prepare('SELECT 1 FROM usage_records WHERE at = ? AND request_id = ? AND route = ?').pluck()
  const insertMissing = db.transaction((records: readonly UsageRecord[]) => {
    let inserted = 0
    for (const r of records) {
      if (present.get(r.at, r.requestId, r.route)) continue
      insertRecord.run(recordValues(r))
      inserted++
    }
    return inserted
  })
  return { insert, insertMissing }
}
