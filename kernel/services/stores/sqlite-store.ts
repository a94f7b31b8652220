/**
 * The embedded store: one SQLite file in the data folder (better-sqlite3, WAL). Its calls are
 * synchronous and made off the request path (the key cache's refresh, the admin API, the
 * hourly purge). Batches of usage records, the one steady write (about 14 batches of 500 a
 * second under load, several milliseconds each), are written by a thread of their own
 * (sqlite-records-thread.ts) on a second connection, so they never hold the event loop.
 */
import { openSqliteFile } from './sqlite-file.js'
import type { KeysSnapshot, KeysTable, RecordsTable, Store, StoredGroup, StoredKey } from './store.js'
import type { UsageDimension, UsagePeriod } from '../../contract/records.js'
import {
  addedKeyColumns,
  addedRecordColumns,
  addedRecordIndexes,
  dimensionColumn,
  groupFromRow,
  keyColumns,
  keyFromRow,
  keyValues,
  periodWhere,
  recordFromRow,
  summaryColumns,
  usageRowFromRow,
} from './sql.js'
import { RecordsWriterThread } from './sqlite-records-thread.js'

const schema = `
CREATE TABLE IF NOT EXISTS usage_records (
  at INTEGER NOT NULL, request_id TEXT NOT NULL, key_id TEXT NOT NULL, grp TEXT NOT NULL, route TEXT NOT NULL,
  model_requested TEXT NOT NULL, model TEXT NOT NULL, upstream_model TEXT,
  prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, cached_tokens INTEGER NOT NULL,
  audio_seconds REAL NOT NULL DEFAULT 0, characters INTEGER NOT NULL DEFAULT 0, usage_source TEXT NOT NULL DEFAULT 'reported',
  value REAL NOT NULL, status INTEGER NOT NULL, outcome TEXT NOT NULL,
  queue_ms INTEGER, ttft_ms INTEGER, total_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS usage_records_at ON usage_records (at);
CREATE INDEX IF NOT EXISTS usage_records_key_at ON usage_records (key_id, at);
CREATE INDEX IF NOT EXISTS usage_records_grp_at ON usage_records (grp, at);
CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY, grp TEXT NOT NULL, digest TEXT NOT NULL, enabled INTEGER NOT NULL, legacy INTEGER NOT NULL,
  budget TEXT, tokens_per_minute INTEGER, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, deleted INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS key_groups (
  id TEXT PRIMARY KEY, config TEXT NOT NULL, updated_at INTEGER NOT NULL, deleted INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS store_meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT OR IGNORE INTO store_meta (name, value) VALUES ('keys_version', 0);
`

const FILE = 'sluice.db'

export function openSqliteStore(dataDir: string): Store {
  const db = openSqliteFile(dataDir, FILE)
  db.exec(schema)
  const columns = new Set(
    (db.prepare('PRAGMA table_info(usage_records)').all() as { name: string }[]).map((c) => c.name),
  )
  for (const c of addedRecordColumns)
    if (!columns.has(c.name)) db.exec(`ALTER TABLE usage_records ADD COLUMN ${c.name} ${c.sqlite}`)
  for (const index of addedRecordIndexes) db.exec(index)
  const keyColumnsNow = new Set(
    (db.prepare('PRAGMA table_info(api_keys)').all() as { name: string }[]).map((c) => c.name),
  )
  for (const c of addedKeyColumns)
    if (!keyColumnsNow.has(c.name)) db.exec(`ALTER TABLE api_keys ADD COLUMN ${c.name} ${c.sqlite}`)

  // The schema is in place before the writer thread opens its connection (on the first batch).
  const writer = new RecordsWriterThread({ dataDir, file: FILE })
  const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ')
  const bump = db.prepare(`UPDATE store_meta SET value = value + 1 WHERE name = 'keys_version'`)
  const version = db.prepare(`SELECT value FROM store_meta WHERE name = 'keys_version'`).pluck()
  const insertKey = db.prepare(
    `INSERT INTO api_keys (${keyColumns.join(', ')}) VALUES (${placeholders(keyColumns.length)}) ON CONFLICT (id) DO NOTHING`,
  )
  const upsertKey = db.prepare(
    `INSERT INTO api_keys (${keyColumns.join(', ')}) VALUES (${placeholders(keyColumns.length)})
     ON CONFLICT (id) DO UPDATE SET ${keyColumns
       .slice(1)
       .map((c) => `${c} = excluded.${c}`)
       .join(', ')}`,
  )
  const upsertGroup = db.prepare(
    `INSERT INTO key_groups (id, config, updated_at, deleted) VALUES (?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at, deleted = excluded.deleted`,
  )
  const ph = () => '?'

  const records: RecordsTable = {
    async ping() {
      db.prepare('SELECT 1').get()
    },
    insert(batch) {
      return writer.insert(batch)
    },
    insertMissing(batch) {
      return writer.insertMissing(batch)
    },
    async list(period: UsagePeriod, limit: number) {
      const where = periodWhere(period, ph)
      const rows = db
        .prepare(`SELECT * FROM usage_records WHERE ${where.sql} ORDER BY at DESC LIMIT ?`)
        .all(...where.values, limit) as Record<string, unknown>[]
      return rows.map(recordFromRow)
    },
    async summarize(period: UsagePeriod, by: UsageDimension) {
      const where = periodWhere(period, ph)
      const column = dimensionColumn[by]
      const rows = db
        .prepare(
          `SELECT ${column} AS name, ${summaryColumns} FROM usage_records WHERE ${where.sql} GROUP BY ${column} ORDER BY ${column}`,
        )
        .all(...where.values) as Record<string, unknown>[]
      return rows.map(usageRowFromRow)
    },
    async spent(scope, since, until = Number.MAX_SAFE_INTEGER) {
      const [column, value] = 'keyId' in scope ? ['key_id', scope.keyId] : ['grp', scope.group]
      return Number(
        db
          .prepare(
            `SELECT COALESCE(SUM(COALESCE(charged, value)), 0) FROM usage_records WHERE ${column} = ? AND at >= ? AND at < ?`,
          )
          .pluck()
          .get(value, since, until),
      )
    },
    async purge(before) {
      return db.prepare('DELETE FROM usage_records WHERE at < ?').run(before).changes
    },
  }

  const keys: KeysTable = {
    async version() {
      return Number(version.get())
    },
    async load(): Promise<KeysSnapshot> {
      return db.transaction(() => ({
        version: Number(version.get()),
        keys: (db.prepare('SELECT * FROM api_keys').all() as Record<string, unknown>[]).map(keyFromRow),
        groups: (db.prepare('SELECT * FROM key_groups').all() as Record<string, unknown>[]).map(groupFromRow),
      }))()
    },
    async insertKey(key: StoredKey) {
      return db.transaction(() => {
        const inserted = insertKey.run(keyValues(key)).changes === 1
        if (inserted) bump.run()
        return inserted
      })()
    },
    async putKey(key: StoredKey) {
      db.transaction(() => {
        upsertKey.run(keyValues(key))
        bump.run()
      })()
    },
    async putGroup(group: StoredGroup) {
      db.transaction(() => {
        upsertGroup.run(group.id, JSON.stringify(group.config), group.updatedAt, group.deleted ? 1 : 0)
        bump.run()
      })()
    },
  }

  return {
    kind: 'sqlite',
    records,
    keys,
    async close() {
      await writer.close()
      if (db.open) db.close()
    },
  }
}
