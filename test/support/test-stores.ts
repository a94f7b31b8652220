/**
 * The two store implementations as contract suites open them: SQLite in a fresh folder, and
 * PostgreSQL in a fresh schema of the real server (open it from a suite made by `suiteNeeding`,
 * which skips or fails the suite when the server is absent). Each comes with the cleanup that
 * removes it.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import type { Store } from '../../kernel/services/stores/store.js'
import { openSqliteStore } from '../../kernel/services/stores/sqlite-store.js'
import { openPostgresStore } from '../../kernel/services/stores/postgres-store.js'
import { POSTGRES_URL, uniqueName } from './services.js'

export interface TestStore {
  store: Store
  cleanup(): Promise<void>
}

export function sqliteTestStore(): TestStore {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-store-'))
  return { store: openSqliteStore(dir), cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) }
}

export async function postgresTestStore(): Promise<TestStore> {
  const schema = uniqueName('sluice_test')
  return { store: await openPostgresStore({ url: POSTGRES_URL, schema }), cleanup: () => dropSchema(schema) }
}

/** Drops a test's PostgreSQL schema and everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL })
  await client.connect()
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  await client.end()
}
