/**
 * The Query service's history and upload stores as contract suites open them: SQLite in a
 * fresh folder, PostgreSQL in a fresh schema (from a suite made by `suiteNeeding(serversFor(kind))`),
 * with a clock the test moves and the cleanup that removes them.
 */
import { storesAccess } from '../../kernel/services/stores/stores-access.js'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createLogger } from '../../kernel/contract/log.js'
import { demoSecretDigest } from '../../kernel/services/keys/demo-secret.js'
import type { QueryStoreOptions } from '../../domains/query/query-services.js'
import { querySettings } from '../../domains/query/query-settings.js'
import { POSTGRES_URL, uniqueName, type Server } from './services.js'
import { dropSchema } from './test-stores.js'

export interface QueryStoreFixture {
  options: QueryStoreOptions
  clock: { t: number }
  cleanup(): Promise<void>
}

export type QueryStoreKind = 'sqlite' | 'postgres'

/** The servers a store of this kind needs. */
export const serversFor = (kind: QueryStoreKind): Server[] => (kind === 'postgres' ? ['postgres'] : [])

export async function queryStoreFixture(
  kind: QueryStoreKind,
  settings: Parameters<typeof querySettings>[0] = {},
): Promise<QueryStoreFixture> {
  const clock = { t: Date.UTC(2026, 4, 1) }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-query-'))
  const schema = uniqueName('sluice_query_test')
  const log = createLogger({ level: 'error', sink: { write: () => undefined } })
  const options: QueryStoreOptions = {
    stores: storesAccess({ dataDir, postgres: kind === 'postgres' ? { url: POSTGRES_URL, schema } : undefined }),
    dataDir,
    configDir: dataDir,
    projectsFile: undefined,
    postgresUrl: kind === 'postgres' ? POSTGRES_URL : undefined,
    postgresSchema: kind === 'postgres' ? schema : 'public',
    env: {},
    log,
    now: () => clock.t,
    demoSecret: (demo) => demoSecretDigest(demo, { dataDir, env: {}, log }),
    settings: querySettings(settings),
  }
  return {
    options,
    clock,
    async cleanup() {
      fs.rmSync(dataDir, { recursive: true, force: true })
      if (kind === 'postgres') await dropSchema(schema)
    },
  }
}
