/**
 * Opens the conversation history: PostgreSQL when `stores.postgres_url` is set, else
 * `query-history.db` in the data folder; with its periodic purge of turns past the retention.
 */
import type { ConversationHistory } from './history.js'
import type { QueryStoreOptions } from './query-services.js'
import { querySettings } from './query-settings.js'
import {
  postgresHistory,
  postgresHistorySchema,
  sqliteHistory,
  sqliteHistorySchema,
  type HistoryTable,
} from './history-tables.js'
import { startPurge } from './purge-timer.js'

export async function openHistory(
  options: QueryStoreOptions,
): Promise<ConversationHistory & { purge(): Promise<number>; close(): Promise<void> }> {
  const settings = options.settings ?? querySettings(undefined)
  const limits = { retentionMs: settings.historyRetentionMs, maxTurns: settings.historyMaxTurns, now: options.now }
  let table: HistoryTable
  let closeStore: () => Promise<void>
  if (options.stores.kind === 'postgres') {
    const { pool } = await options.stores.postgres({ ddl: postgresHistorySchema })
    table = postgresHistory(pool, limits)
    closeStore = () => pool.end()
  } else {
    const db = options.stores.sqlite('query-history.db')
    db.exec(sqliteHistorySchema)
    table = sqliteHistory(db, limits)
    closeStore = async () => void db.close()
  }
  const purging = startPurge('query history', settings.purgeEveryMs, () => table.purge(), options.log)
  return {
    recent: (p, s, limit) => table.recent(p, s, limit),
    append: (p, s, turns) => table.append(p, s, turns),
    purge: () => table.purge(),
    async close() {
      purging.stop()
      await closeStore()
    },
  }
}
