/**
 * The Responses API's stored responses as the plugin's actions see them (its `open` state): put,
 * get and delete per key, over the responses table. Retention is bounded: responses older than
 * `stores.responses_retention_days`, and a key's beyond its newest `stores.responses_per_key`,
 * are purged hourly (and at start), as usage records are.
 */
import { describeCause, type Kernel, type Logger } from '../../../kernel/contract/index.js'
import { openResponsesTable, type ResponsesTable, type StoredResponse } from './responses-table.js'

export type { StoredResponse } from './responses-table.js'

export interface KeptResponses {
  /** Keeps a response (replacing one of the same id). */
  put(response: StoredResponse): Promise<void>
  /** A key's own response; undefined when missing, expired or another key's. */
  get(keyId: string, id: string): Promise<StoredResponse | undefined>
  /** Deletes a key's own response; false when there was none. */
  delete(keyId: string, id: string): Promise<boolean>
}

export interface ResponseKeeperOptions {
  retentionDays: number
  maxPerKey: number
  log: Logger
  now?: () => number
}

const HOUR = 3_600_000
const DAY = 86_400_000

export class ResponseKeeper implements KeptResponses {
  private readonly timer: NodeJS.Timeout
  private readonly now: () => number

  constructor(
    private readonly table: ResponsesTable,
    private readonly options: ResponseKeeperOptions,
  ) {
    this.now = options.now ?? Date.now
    this.timer = setInterval(() => void this.purge(), HOUR)
    this.timer.unref()
    void this.purge()
  }

  put(response: StoredResponse): Promise<void> {
    return this.table.put(response)
  }

  async get(keyId: string, id: string): Promise<StoredResponse | undefined> {
    const found = await this.table.get(keyId, id)
    // Past retention but not purged yet: gone all the same.
    return found && found.createdAt >= this.now() - this.options.retentionDays * DAY ? found : undefined
  }

  delete(keyId: string, id: string): Promise<boolean> {
    return this.table.delete(keyId, id)
  }

  async purge(): Promise<void> {
    try {
      const removed = await this.table.purge(this.now() - this.options.retentionDays * DAY, this.options.maxPerKey)
      if (removed > 0)
        this.options.log.info('stored responses purged', { removed, retention_days: this.options.retentionDays })
    } catch (err) {
      this.options.log.warn('stored responses purge failed', { cause: describeCause(err) })
    }
  }

  close(): void {
    clearInterval(this.timer)
  }
}

/**
 * The plugin's state: the table where the deployment keeps its data, behind a keeper with the
 * retention of server.yaml (`stores:`, read at start); closed at shutdown.
 */
export async function openKeptResponses(kernel: Kernel): Promise<KeptResponses & { close(): Promise<void> }> {
  const stores = kernel.config.server.stores
  const table = await openResponsesTable(kernel.stores)
  const keeper = new ResponseKeeper(table, {
    retentionDays: stores.responses_retention_days ?? 30,
    maxPerKey: stores.responses_per_key ?? 10_000,
    log: kernel.log,
    now: kernel.now,
  })
  return {
    put: (response) => keeper.put(response),
    get: (keyId, id) => keeper.get(keyId, id),
    delete: (keyId, id) => keeper.delete(keyId, id),
    async close() {
      keeper.close()
      await table.close()
    },
  }
}
