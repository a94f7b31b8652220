/** What the embedded store and its records' writer thread say to each other. */
import type { UsageRecord } from '../../contract/records.js'

export type RecordsJob =
  | { id: number; kind: 'insert' | 'insertMissing'; records: readonly UsageRecord[] }
  /** The last job: the thread closes its connection once the jobs before it are done. */
  | { id: number; kind: 'close' }

export type RecordsReply =
  | { id: number; ok: true; inserted: number }
  | { id: number; ok: false; name: string; message: string; code?: string }

/** What the thread is given when it starts. */
export interface RecordsWorkerData {
  dataDir: string
  file: string
}
