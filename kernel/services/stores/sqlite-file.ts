/** A SQLite database file in the data folder, as every embedded store opens it. */
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'

/** WAL, so readers never wait on the writer; NORMAL sync, safe with WAL; a writer waits 5 s for the lock. */
export function openSqliteFile(dataDir: string, file: string): Database.Database {
  fs.mkdirSync(dataDir, { recursive: true })
  const db = new Database(path.join(dataDir, file))
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('busy_timeout = 5000')
  return db
}
