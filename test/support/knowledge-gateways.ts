/**
 * Where the knowledge e2e scenarios put the gateway's stores: the embedded SQLite; the real
 * PostgreSQL in a fresh schema (dropped after; its exact-array vector path); or PGlite with
 * pgvector served on a loopback port over the wire protocol (the pgvector path). Each gives
 * the `stores:` overrides for server.yaml and the cleanup that removes it.
 */
import { PGlite } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite-pgvector'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'
import { POSTGRES_URL, uniqueName, type Server } from './services.js'
import { dropSchema } from './test-stores.js'

export interface GatewayStores {
  stores: Record<string, unknown>
  cleanup(): Promise<void>
}

export type KnowledgeStoreKind = 'sqlite' | 'postgres' | 'pglite'

/** The servers a gateway on this kind of store needs (for `suiteNeeding`). */
export const serversFor = (kind: KnowledgeStoreKind): Server[] => (kind === 'postgres' ? ['postgres'] : [])

export async function gatewayStores(kind: KnowledgeStoreKind): Promise<GatewayStores> {
  if (kind === 'sqlite') return { stores: {}, cleanup: async () => undefined }
  if (kind === 'postgres') {
    const schema = uniqueName('sluice_kb_e2e')
    return { stores: { postgres_url: POSTGRES_URL, postgres_schema: schema }, cleanup: () => dropSchema(schema) }
  }
  const db = await PGlite.create({ extensions: { vector } })
  // PGlite is one session. The socket server queues every connection's queries into it, and
  // while one connection has a transaction open only that connection's queries run, so the
  // gateway's two pools (records, knowledge: up to 4 connections each) can share it.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 16 })
  await server.start()
  return {
    stores: { postgres_url: `postgres://postgres@${server.getServerConn()}/postgres`, postgres_schema: 'sluice_kb' },
    cleanup: async () => {
      await server.stop()
      await db.close()
    },
  }
}
