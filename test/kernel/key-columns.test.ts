/**
 * The keys table of an older release (without expires_at, models, requests_per_minute) gains
 * the columns when a store opens on it, in SQLite and in PostgreSQL: its rows load as keys
 * without those fields, and keys with them are written and read back.
 */
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import type { Store, StoredKey } from '../../kernel/services/stores/store.js'
import { openSqliteStore } from '../../kernel/services/stores/sqlite-store.js'
import { openPostgresStore } from '../../kernel/services/stores/postgres-store.js'
import { dropSchema } from '../support/test-stores.js'
import { POSTGRES_URL, uniqueName, type Server } from '../support/services.js'
import { suiteNeeding } from '../support/needs-server.js'

/** api_keys as the first release made it, with one key in it. */
const OLD_TABLE = (int: string) => `CREATE TABLE api_keys (
  id TEXT PRIMARY KEY, grp TEXT NOT NULL, digest TEXT NOT NULL, enabled ${int} NOT NULL, legacy ${int} NOT NULL,
  budget TEXT, tokens_per_minute INTEGER, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, deleted ${int} NOT NULL
)`
const OLD_ROW = `INSERT INTO api_keys VALUES ('old', 'demo', '${'a'.repeat(64)}', 1, 0, NULL, 300, 1, 2, 0)`

const withFields: StoredKey = {
  id: 'new',
  group: 'demo',
  digest: 'b'.repeat(64),
  enabled: true,
  legacy: false,
  tokensPerMinute: undefined,
  expiresAt: 1_900_000_000_000,
  models: ['sim-chat', 'sim-vision'],
  requestsPerMinute: 2,
  createdAt: 3,
  updatedAt: 4,
  deleted: false,
}

function upgrade(
  label: string,
  needs: readonly Server[],
  open: () => Promise<{ store: Store; done(): Promise<void> }>,
) {
  const test = suiteNeeding(needs, `keys table of an older release: ${label}`)
  test('the store adds the columns; old rows load without the fields; new rows keep them', async () => {
    const { store, done } = await open()
    try {
      const old = (await store.keys.load()).keys.find((k) => k.id === 'old')!
      assert.equal(
        [old.tokensPerMinute, old.expiresAt, old.models, old.requestsPerMinute],
        [300, undefined, undefined, undefined],
      )
      await store.keys.putKey(withFields)
      await store.keys.putKey({ ...old, requestsPerMinute: 7 })
      const keys = (await store.keys.load()).keys
      const back = keys.find((k) => k.id === 'new')!
      assert.equal(
        [back.expiresAt, back.models, back.requestsPerMinute],
        [withFields.expiresAt, withFields.models, withFields.requestsPerMinute],
      )
      assert.is(keys.find((k) => k.id === 'old')!.requestsPerMinute, 7)
    } finally {
      await done()
    }
  })
  test.run()
}

upgrade('sqlite', [], async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-old-keys-'))
  const db = new Database(path.join(dir, 'sluice.db'))
  db.exec(OLD_TABLE('INTEGER'))
  db.exec(OLD_ROW)
  db.close()
  const store = openSqliteStore(dir)
  return {
    store,
    async done() {
      await store.close()
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
})

upgrade('postgres', ['postgres'], async () => {
  const schema = uniqueName('sluice_old_keys')
  const client = new pg.Client({ connectionString: POSTGRES_URL })
  await client.connect()
  await client.query(`CREATE SCHEMA ${schema}`)
  await client.query(`SET search_path = ${schema}`)
  await client.query(OLD_TABLE('SMALLINT'))
  await client.query(OLD_ROW)
  await client.end()
  const store = await openPostgresStore({ url: POSTGRES_URL, schema })
  return {
    store,
    async done() {
      await store.close()
      await dropSchema(schema)
    },
  }
})
