/**
 * The scale-out store: PostgreSQL through a small pg pool, shared by every replica. Tables are
 * made at start under an advisory lock, so replicas starting together do not race. All SQL is
 * parameterized.
 */
import pg from 'pg'
import { withTimeout } from '../../contract/with-timeout.js'
import { inTransaction as transaction } from '../../contract/pg-transaction.js'
import type { KeysSnapshot, KeysTable, RecordsTable, Store, StoredGroup, StoredKey } from './store.js'
import type { UsageDimension, UsagePeriod, UsageRecord } from '../../contract/records.js'
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
import { insertRecordsStatement, recordColumnArrays } from './postgres-records-insert.js'

const schemaSql = `
CREATE TABLE IF NOT EXISTS usage_records (
  at BIGINT NOT NULL, request_id TEXT NOT NULL, key_id TEXT NOT NULL, grp TEXT NOT NULL, route TEXT NOT NULL,
  model_requested TEXT NOT NULL, model TEXT NOT NULL, upstream_model TEXT,
  prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, cached_tokens INTEGER NOT NULL,
  audio_seconds DOUBLE PRECISION NOT NULL DEFAULT 0, characters INTEGER NOT NULL DEFAULT 0, usage_source TEXT NOT NULL DEFAULT 'reported',
  value DOUBLE PRECISION NOT NULL, status INTEGER NOT NULL, outcome TEXT NOT NULL,
  queue_ms INTEGER, ttft_ms INTEGER, total_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS usage_records_at ON usage_records (at);
CREATE INDEX IF NOT EXISTS usage_records_key_at ON usage_records (key_id, at);
CREATE INDEX IF NOT EXISTS usage_records_grp_at ON usage_records (grp, at);
CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY, grp TEXT NOT NULL, digest TEXT NOT NULL, enabled SMALLINT NOT NULL, legacy SMALLINT NOT NULL,
  budget TEXT, tokens_per_minute INTEGER, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, deleted SMALLINT NOT NULL
);
CREATE TABLE IF NOT EXISTS key_groups (
  id TEXT PRIMARY KEY, config TEXT NOT NULL, updated_at BIGINT NOT NULL, deleted SMALLINT NOT NULL
);
CREATE TABLE IF NOT EXISTS store_meta (name TEXT PRIMARY KEY, value BIGINT NOT NULL);
INSERT INTO store_meta (name, value) VALUES ('keys_version', 0) ON CONFLICT (name) DO NOTHING;
`

/**
 * Rows per INSERT statement. A batch's columns go as arrays (postgres-records-insert.ts), so no
 * parameter limit applies; this bounds one message when a long outage's backlog is written.
 */
const ROWS_PER_STATEMENT = 5000

export interface PostgresOptions {
  url: string
  schema: string
}

export async function openPostgresStore(options: PostgresOptions): Promise<Store> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: 4,
    // Every connection works in the configured schema (a fixed identifier, checked by the config schema).
    options: `-c search_path=${options.schema}`,
    connectionTimeoutMillis: 5000,
  })
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => undefined)
  const client = await pool.connect()
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', ['sluice-schema'])
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${options.schema}`)
      await client.query(schemaSql)
      for (const c of addedRecordColumns)
        await client.query(`ALTER TABLE usage_records ADD COLUMN IF NOT EXISTS ${c.name} ${c.postgres}`)
      for (const index of addedRecordIndexes) await client.query(index)
      for (const c of addedKeyColumns)
        await client.query(`ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS ${c.name} ${c.postgres}`)
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', ['sluice-schema'])
    }
  } catch (err) {
    client.release()
    await pool.end()
    throw err
  }
  client.release()

  const ph = (n: number) => `$${n}`
  const keyPlaceholders = keyColumns.map((_, i) => `$${i + 1}`).join(', ')

  const inTransaction = <T>(work: (c: pg.PoolClient) => Promise<T>): Promise<T> => transaction(pool, work)
  const bump = (c: pg.PoolClient) => c.query(`UPDATE store_meta SET value = value + 1 WHERE name = 'keys_version'`)

  const records: RecordsTable = {
    async ping() {
      // A bounded wait: a probe must answer even when the server is gone.
      await withTimeout(pool.query('SELECT 1'), 2000, 'PostgreSQL did not answer within 2 s')
    },
    async insert(batch: readonly UsageRecord[]) {
      for (let start = 0; start < batch.length; start += ROWS_PER_STATEMENT) {
        await pool.query({
          ...insertRecordsStatement,
          values: recordColumnArrays(batch.slice(start, start + ROWS_PER_STATEMENT)),
        })
      }
    },
    async insertMissing(batch: readonly UsageRecord[]) {
      const missing: UsageRecord[] = []
      for (const r of batch) {
        const { rowCount } = await pool.query(
          'SELECT 1 FROM usage_records WHERE at = $1 AND request_id = $2 AND route = $3',
          [r.at, r.requestId, r.route],
        )
        if (!rowCount) missing.push(r)
      }
      await records.insert(missing)
      return missing.length
    },
    async list(period: UsagePeriod, limit: number) {
      const where = periodWhere(period, ph)
      const { rows } = await pool.query(
        `SELECT * FROM usage_records WHERE ${where.sql} ORDER BY at DESC LIMIT $${where.values.length + 1}`,
        [...where.values, limit],
      )
      return rows.map(recordFromRow)
    },
    async summarize(period: UsagePeriod, by: UsageDimension) {
      const where = periodWhere(period, ph)
      const column = dimensionColumn[by]
      const { rows } = await pool.query(
        `SELECT ${column} AS name, ${summaryColumns} FROM usage_records WHERE ${where.sql} GROUP BY ${column} ORDER BY ${column}`,
        where.values,
      )
      return rows.map(usageRowFromRow)
    },
    async spent(scope, since, until = Number.MAX_SAFE_INTEGER) {
      const [column, value] = 'keyId' in scope ? ['key_id', scope.keyId] : ['grp', scope.group]
      const { rows } = await pool.query(
        `SELECT COALESCE(SUM(COALESCE(charged, value)), 0)::float8 AS spent FROM usage_records WHERE ${column} = $1 AND at >= $2 AND at < $3`,
        [value, since, until],
      )
      return Number(rows[0]?.spent ?? 0)
    },
    async purge(before) {
      const res = await pool.query('DELETE FROM usage_records WHERE at < $1', [before])
      return res.rowCount ?? 0
    },
  }

  const keys: KeysTable = {
    async version() {
      const { rows } = await pool.query(`SELECT value FROM store_meta WHERE name = 'keys_version'`)
      return Number(rows[0]?.value ?? 0)
    },
    async load(): Promise<KeysSnapshot> {
      return inTransaction(async (c) => {
        await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ')
        const version = Number(
          (await c.query(`SELECT value FROM store_meta WHERE name = 'keys_version'`)).rows[0]?.value ?? 0,
        )
        const keyRows = (await c.query('SELECT * FROM api_keys')).rows
        const groupRows = (await c.query('SELECT * FROM key_groups')).rows
        return { version, keys: keyRows.map(keyFromRow), groups: groupRows.map(groupFromRow) }
      })
    },
    async insertKey(key: StoredKey) {
      return inTransaction(async (c) => {
        const res = await c.query(
          `INSERT INTO api_keys (${keyColumns.join(', ')}) VALUES (${keyPlaceholders}) ON CONFLICT (id) DO NOTHING`,
          keyValues(key),
        )
        if (res.rowCount === 1) await bump(c)
        return res.rowCount === 1
      })
    },
    async putKey(key: StoredKey) {
      await inTransaction(async (c) => {
        await c.query(
          `INSERT INTO api_keys (${keyColumns.join(', ')}) VALUES (${keyPlaceholders})
           ON CONFLICT (id) DO UPDATE SET ${keyColumns
             .slice(1)
             .map((col) => `${col} = EXCLUDED.${col}`)
             .join(', ')}`,
          keyValues(key),
        )
        await bump(c)
      })
    },
    async putGroup(group: StoredGroup) {
      await inTransaction(async (c) => {
        await c.query(
          `INSERT INTO key_groups (id, config, updated_at, deleted) VALUES ($1, $2, $3, $4)
           ON CONFLICT (id) DO UPDATE SET config = EXCLUDED.config, updated_at = EXCLUDED.updated_at, deleted = EXCLUDED.deleted`,
          [group.id, JSON.stringify(group.config), group.updatedAt, group.deleted ? 1 : 0],
        )
        await bump(c)
      })
    },
  }

  return {
    kind: 'postgres',
    records,
    keys,
    async close() {
      await pool.end()
    },
  }
}
