/**
 * Opens the chat uploads: PostgreSQL when `stores.postgres_url` is set, else
 * `query-uploads.db` in the data folder; with its periodic purge of expired files.
 */
import type { ChatUploads } from './uploads.js'
import type { QueryStoreOptions } from './query-services.js'
import { querySettings } from './query-settings.js'
import {
  postgresUploads,
  postgresUploadSchema,
  sqliteUploads,
  sqliteUploadSchema,
  type UploadTable,
} from './upload-tables.js'
import { startPurge } from './purge-timer.js'

export async function openUploads(
  options: QueryStoreOptions,
): Promise<ChatUploads & { purge(): Promise<number>; close(): Promise<void> }> {
  const settings = options.settings ?? querySettings(undefined)
  let table: UploadTable
  let closeStore: () => Promise<void>
  if (options.stores.kind === 'postgres') {
    const { pool } = await options.stores.postgres({ ddl: postgresUploadSchema })
    table = postgresUploads(pool, options.now)
    closeStore = () => pool.end()
  } else {
    const db = options.stores.sqlite('query-uploads.db')
    db.exec(sqliteUploadSchema)
    table = sqliteUploads(db, options.now)
    closeStore = async () => void db.close()
  }
  const purging = startPurge('chat uploads', settings.purgeEveryMs, () => table.purge(), options.log)
  return {
    put: (p, s, q, files, expiresAt) => table.put(p, s, q, files, expiresAt),
    get: (p, s, q, names) => table.get(p, s, q, names),
    purge: () => table.purge(),
    async close() {
      purging.stop()
      await closeStore()
    },
  }
}
