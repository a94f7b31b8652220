/**
 * The stores seam (kernel.stores): the deployment's database as plugins and domains reach it to
 * keep tables of their own. SQLite files in the data folder by default; the PostgreSQL of
 * `stores.postgres_url` when configured (the environment's SLUICE_POSTGRES_URL winning, as for
 * the records), read at start only.
 */
import type pg from 'pg'
import type { Stores } from '../../contract/stores.js'
import { openSqliteFile } from './sqlite-file.js'
import { PolledSnapshot } from './polled-snapshot.js'
import { redactUrl } from '../../contract/log.js'

export interface StoresOptions {
  dataDir: string
  postgres?: { readonly url: string; readonly schema: string }
}

export function storesAccess(options: StoresOptions): Stores {
  const { postgres } = options
  return {
    kind: postgres ? 'postgres' : 'sqlite',
    sqlite: (file) => openSqliteFile(options.dataDir, file),
    snapshot: (table, apply, snapshotOptions) => new PolledSnapshot(table, apply, snapshotOptions),
    async postgres({ ddl, max = 2 }) {
      if (!postgres) throw new Error('no PostgreSQL is configured (stores.postgres_url)')
      try {
        return { pool: await openPool(postgres.url, postgres.schema, ddl, max), schema: postgres.schema }
      } catch (err) {
        throw new Error(`cannot open PostgreSQL at ${redactUrl(postgres.url)}: ${(err as Error).message}`)
      }
    },
  }
}

/**
 * A small pool for one owner's tables, made at open under an advisory lock so that replicas
 * starting together do not race. The schema is a fixed identifier from config (server.schema.ts
 * checks it), never request text. pg is loaded only here, when PostgreSQL is configured.
 */
async function openPool(url: string, schema: string, ddl: string, max: number): Promise<pg.Pool> {
  const { default: pg } = await import('pg')
  const pool = new pg.Pool({
    connectionString: url,
    max,
    options: `-c search_path=${schema}`,
    connectionTimeoutMillis: 5000,
  })
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => undefined)
  try {
    const client = await pool.connect()
    try {
      await client.query('SELECT pg_advisory_lock(hashtext($1))', ['sluice-schema'])
      try {
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`)
        await client.query(ddl)
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', ['sluice-schema'])
      }
    } finally {
      client.release()
    }
  } catch (err) {
    await pool.end()
    throw err
  }
  return pool
}
