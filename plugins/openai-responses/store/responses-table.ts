/**
 * Stored responses of the Responses API (`store: true`): the Response a client got and the
 * conversation's input up to it, per key, for `previous_response_id`, `item_reference` and
 * GET/DELETE /v1/responses/:id. Unlike usage records this is the client's own text, kept on
 * purpose and for a bounded time (stores.responses_retention_days). One table, two
 * implementations (SQLite, PostgreSQL), one contract test. SQL is parameterized. The table lives
 * where the deployment keeps its data (kernel.stores): its own file `responses.db` in the data
 * folder, or the `stored_responses` table of the configured PostgreSQL.
 */
import type Database from 'better-sqlite3'
import type pg from 'pg'
import type { Stores } from '../../../kernel/contract/index.js'

export interface StoredResponse {
  /** `resp_…` */
  readonly id: string
  /** The key that made it: the only key that may read or delete it. */
  readonly keyId: string
  /** Epoch ms. */
  readonly createdAt: number
  /** The Response object as the client got it. */
  readonly response: unknown
  /** The input items up to this response (a previous response's included), as sent, with ids. */
  readonly input: readonly unknown[]
}

export interface ResponsesTable {
  put(response: StoredResponse): Promise<void>
  /** The response `id` of key `keyId`; undefined when missing or another key's. */
  get(keyId: string, id: string): Promise<StoredResponse | undefined>
  /** Deletes the response `id` of key `keyId`; false when there was none. */
  delete(keyId: string, id: string): Promise<boolean>
  /** Deletes responses made before `before` (epoch ms) and each key's beyond its newest `maxPerKey`; returns how many. */
  purge(before: number, maxPerKey: number): Promise<number>
  /** Closes the file or ends the pool. */
  close(): Promise<void>
}

/** The SQLite file of the embedded default. */
const FILE = 'responses.db'

/** Opens the table where the deployment keeps its data, making it when missing. */
export async function openResponsesTable(stores: Stores): Promise<ResponsesTable> {
  if (stores.kind === 'postgres') {
    const { pool } = await stores.postgres({ ddl: postgresResponsesSchema, max: 2 })
    return postgresResponsesTable(pool)
  }
  const db = stores.sqlite(FILE)
  try {
    db.exec(sqliteResponsesSchema)
  } catch (err) {
    db.close()
    throw err
  }
  return sqliteResponsesTable(db)
}

const columns = 'id, key_id, created_at, response, input'

const overflow = (ph: string) =>
  `DELETE FROM stored_responses WHERE id IN (SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY key_id ORDER BY created_at DESC, id DESC) AS n FROM stored_responses) ranked WHERE n > ${ph})`

function fromRow(row: Record<string, unknown>): StoredResponse {
  return {
    id: String(row.id),
    keyId: String(row.key_id),
    createdAt: Number(row.created_at),
    response: JSON.parse(String(row.response)),
    input: JSON.parse(String(row.input)) as unknown[],
  }
}

const values = (r: StoredResponse) => [r.id, r.keyId, r.createdAt, JSON.stringify(r.response), JSON.stringify(r.input)]

export const sqliteResponsesSchema = `
CREATE TABLE IF NOT EXISTS stored_responses (
  id TEXT PRIMARY KEY, key_id TEXT NOT NULL, created_at INTEGER NOT NULL, response TEXT NOT NULL, input TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS stored_responses_key_created ON stored_responses (key_id, created_at);
CREATE INDEX IF NOT EXISTS stored_responses_created ON stored_responses (created_at);
`

export function sqliteResponsesTable(db: Database.Database): ResponsesTable {
  const insert = db.prepare(
    `INSERT INTO stored_responses (${columns}) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET response = excluded.response, input = excluded.input`,
  )
  const select = db.prepare(`SELECT ${columns} FROM stored_responses WHERE id = ? AND key_id = ?`)
  const remove = db.prepare('DELETE FROM stored_responses WHERE id = ? AND key_id = ?')
  const expire = db.prepare('DELETE FROM stored_responses WHERE created_at < ?')
  const trim = db.prepare(overflow('?'))
  return {
    async put(r) {
      insert.run(values(r))
    },
    async get(keyId, id) {
      const row = select.get(id, keyId) as Record<string, unknown> | undefined
      return row ? fromRow(row) : undefined
    },
    async delete(keyId, id) {
      return remove.run(id, keyId).changes > 0
    },
    async purge(before, maxPerKey) {
      return db.transaction(() => expire.run(before).changes + trim.run(maxPerKey).changes)()
    },
    async close() {
      if (db.open) db.close()
    },
  }
}

export const postgresResponsesSchema = `
CREATE TABLE IF NOT EXISTS stored_responses (
  id TEXT PRIMARY KEY, key_id TEXT NOT NULL, created_at BIGINT NOT NULL, response TEXT NOT NULL, input TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS stored_responses_key_created ON stored_responses (key_id, created_at);
CREATE INDEX IF NOT EXISTS stored_responses_created ON stored_responses (created_at);
`

export function postgresResponsesTable(pool: pg.Pool): ResponsesTable {
  return {
    async put(r) {
      await pool.query(
        `INSERT INTO stored_responses (${columns}) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO UPDATE SET response = EXCLUDED.response, input = EXCLUDED.input`,
        values(r),
      )
    },
    async get(keyId, id) {
      const { rows } = await pool.query(`SELECT ${columns} FROM stored_responses WHERE id = $1 AND key_id = $2`, [
        id,
        keyId,
      ])
      return rows[0] ? fromRow(rows[0] as Record<string, unknown>) : undefined
    },
    async delete(keyId, id) {
      return (
        ((await pool.query('DELETE FROM stored_responses WHERE id = $1 AND key_id = $2', [id, keyId])).rowCount ?? 0) >
        0
      )
    },
    async purge(before, maxPerKey) {
      const expired = (await pool.query('DELETE FROM stored_responses WHERE created_at < $1', [before])).rowCount ?? 0
      const trimmed = (await pool.query(overflow('$1'), [maxPerKey])).rowCount ?? 0
      return expired + trimmed
    },
    async close() {
      await pool.end()
    },
  }
}
