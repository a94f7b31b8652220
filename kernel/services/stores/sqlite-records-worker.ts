/**
 * The embedded store's records' writer thread: batches of usage records are inserted here, on
 * a connection of its own to the same file (WAL: the gateway's thread keeps reading while a
 * batch is written), so that the few milliseconds of a 500-record transaction never hold the
 * gateway's event loop. Jobs are answered in the order they came, one at a time; a job is
 * answered only once its transaction has committed (or failed).
 */
import { parentPort, workerData } from 'node:worker_threads'
import { openSqliteFile } from './sqlite-file.js'
import { prepareRecordInserts } from './sqlite-records-inserts.js'
import type { RecordsJob, RecordsReply, RecordsWorkerData } from './sqlite-records-messages.js'

const port = parentPort
if (!port) throw new Error('the records writer started outside a worker thread')
const { dataDir, file } = workerData as RecordsWorkerData
// The same pragmas as every embedded store (WAL, NORMAL sync, 5 s busy wait); the gateway's
// thread made the schema before starting this one.
const db = openSqliteFile(dataDir, file)
const inserts = prepareRecordInserts(db)

function run(job: RecordsJob): RecordsReply {
  try {
    if (job.kind === 'close') {
      db.close()
      return { id: job.id, ok: true, inserted: 0 }
    }
    if (job.kind === 'insert') {
      inserts.insert(job.records)
      return { id: job.id, ok: true, inserted: job.records.length }
    }
    return { id: job.id, ok: true, inserted: inserts.insertMissing(job.records) }
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err))
    const code = (e as Error & { code?: unknown }).code
    return { id: job.id, ok: false, name: e.name, message: e.message, ...(typeof code === 'string' ? { code } : {}) }
  }
}

port.on('message', (job: RecordsJob) => {
  port.postMessage(run(job))
  if (job.kind === 'close') port.close()
})
