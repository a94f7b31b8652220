/**
 * The three knowledge stores the contract suite runs against: SQLite in a fresh folder; the real
 * PostgreSQL in a fresh schema (its exact-array path: the server has no pgvector); and PGlite
 * with pgvector, served on a loopback port over the wire protocol to the same `pg` client (the
 * pgvector path). Each comes with the cleanup that removes it.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { vector } from '@electric-sql/pglite-pgvector'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'
import type { KnowledgeStore } from '../../domains/query/knowledge/store.js'
import { openSqliteKnowledge } from '../../domains/query/knowledge/sqlite-knowledge.js'
import { openSqliteFile } from '../../kernel/services/stores/sqlite-file.js'
import { openPostgresKnowledge } from '../../domains/query/knowledge/postgres-knowledge.js'
import { answered, POSTGRES_URL, uniqueName } from './services.js'
import { dropSchema } from './test-stores.js'

export interface TestKnowledge {
  store: KnowledgeStore
  /** The open log lines: which vector path the store chose. */
  log: string[]
  cleanup(): Promise<void>
  /** The real PostgreSQL only: runs a statement in the store's schema (e.g. ANALYZE, to have statistics now). */
  sql?: (text: string) => Promise<void>
}

export function sqliteTestKnowledge(): TestKnowledge {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-kb-'))
  const log: string[] = []
  return {
    store: openSqliteKnowledge(openSqliteFile(dir, 'knowledge.db'), (l) => log.push(l)),
    log,
    cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }),
  }
}

/**
 * Undefined when PostgreSQL did not answer: the benches leave it out then. A suite opens it from
 * `suiteNeeding(['postgres'], …)`, which skips or fails instead, so it never sees undefined.
 */
export async function postgresTestKnowledge(): Promise<TestKnowledge | undefined> {
  if (!answered.postgres) return undefined
  const schema = uniqueName('sluice_kb')
  const log: string[] = []
  const store = await openPostgresKnowledge({ url: POSTGRES_URL, schema, log: (l) => log.push(l) })
  const sql = async (text: string) => {
    const client = new pg.Client({ connectionString: POSTGRES_URL, options: `-c search_path=${schema}` })
    await client.connect()
    try {
      await client.query(text)
    } finally {
      await client.end()
    }
  }
  return { store, log, cleanup: () => dropSchema(schema), sql }
}

export async function pgliteTestKnowledge(): Promise<TestKnowledge> {
  const db = await PGlite.create({ extensions: { vector } })
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0 })
  await server.start()
  const log: string[] = []
  // PGlite is one session: the socket server takes one connection, so the pool holds one.
  const store = await openPostgresKnowledge({
    url: `postgres://postgres@${server.getServerConn()}/postgres`,
    schema: 'sluice_kb',
    poolSize: 1,
    log: (l) => log.push(l),
  })
  return {
    store,
    log,
    cleanup: async () => {
      await server.stop()
      await db.close()
    },
  }
}
