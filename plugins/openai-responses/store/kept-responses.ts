/**
 * The Responses API's stored responses as plugins see them (`kernel.responses`): put, get and
 * delete per key, over the store's responses table. Retention is bounded: responses older than
 * `stores.responses_retention_days`, and a key's beyond its newest `stores.responses_per_key`,
 * are purged hourly (and at start), as usage records are.
 */
import { describeCause, type Logger } from '../../../kernel/contract/index.js'
import type { ResponsesTable, StoredResponse } from './responses-table.js'

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

  constructor(private readonly table: ResponsesTable, private readonly options: ResponseKeeperOptions) {
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
      if (removed > 0) this.options.log.info('stored responses purged', { removed, retention_days: this.options.retentionDays })
    } catch (err) {
      this.options.log.warn('stored responses purge failed', { cause: describeCause(err) })
    }
  }

  close(): void {
    clearInterval(this.timer)
  }
}
