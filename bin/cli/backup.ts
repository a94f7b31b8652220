/**
 * `sluice backup <folder>`: an online backup of the data folder's SQLite databases, safe while
 * the gateway runs. Each database is copied with SQLite's online backup API (better-sqlite3's
 * `.backup()`), which reads a consistent snapshot, WAL included, without stopping writers; the
 * other files (the usage-record journal, the demo tokens) are copied as they are. The backup
 * is a plain data folder: stop the gateway, put it in place of the old one, start again.
 * With PostgreSQL, back up the database with pg_dump instead (docs/operator-guide.md).
 */
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { EXIT, FailedError, UsageError, parse, type Io } from './common.js'

export const BACKUP_USAGE = `usage: sluice backup <folder> [--data <dir>]

Copies the SQLite databases of the data folder (online, while the gateway runs) and its other
files into <folder>, which must not exist yet or be empty.

options:
  --data <dir>   the data folder (default $SLUICE_DATA or ./data)
`

export async function backupCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, { data: { type: 'string' } })
  if (values.help) {
    io.out(BACKUP_USAGE)
    return EXIT.ok
  }
  if (positionals.length !== 1) throw new UsageError('one destination folder is required')
  const dataDir = path.resolve(values.data ?? (io.env.SLUICE_DATA || './data'))
  const dest = path.resolve(positionals[0]!)
  if (!fs.existsSync(path.join(dataDir, 'sluice.db')))
    throw new FailedError(`${dataDir} is not a Sluice data folder (no sluice.db)`)
  if (fs.existsSync(dest) && fs.readdirSync(dest).length > 0) throw new FailedError(`${dest} is not empty`)
  fs.mkdirSync(dest, { recursive: true })
  for (const entry of fs.readdirSync(dataDir, { withFileTypes: true })) {
    const from = path.join(dataDir, entry.name)
    const to = path.join(dest, entry.name)
    // The write-ahead log and its index belong to a live database: the backup API reads them.
    if (/\.db-(wal|shm)$/.test(entry.name)) continue
    if (entry.isFile() && entry.name.endsWith('.db')) {
      const db = new Database(from, { readonly: true, fileMustExist: true })
      try {
        await db.backup(to)
      } finally {
        db.close()
      }
      io.out(`${entry.name}: backed up\n`)
    } else {
      fs.cpSync(from, to, { recursive: true })
      io.out(`${entry.name}: copied\n`)
    }
  }
  io.out(`backup of ${dataDir} in ${dest}\n`)
  return EXIT.ok
}
