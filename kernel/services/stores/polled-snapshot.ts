/**
 * A table's snapshot kept in memory for the request path (`Stores.snapshot`, the key store's
 * cache): reloaded at once after a write of this process, and when another replica's write moves
 * the table's version number, which is polled every `refreshMs` (one tiny query). A failed poll
 * keeps the snapshot it has and tries again at the next tick. Reloads never overlap.
 */
import { describeCause, type Logger } from '../../contract/log.js'
import type { TableSnapshot, VersionedTable } from '../../contract/stores.js'

export class PolledSnapshot<S extends { readonly version: number }> implements TableSnapshot {
  private version = -1
  private refreshing: Promise<void> | undefined
  private readonly timer: NodeJS.Timeout

  /** `apply` installs a loaded snapshot in the owner's indexes. */
  constructor(
    private readonly table: VersionedTable<S>,
    private readonly apply: (snapshot: S) => void,
    private readonly options: { readonly refreshMs: number; readonly log: Logger; readonly what: string },
  ) {
    this.timer = setInterval(() => void this.poll(), options.refreshMs)
    this.timer.unref()
  }

  /** Reloads now (after a write of ours, so that the next request sees it). */
  async reload(): Promise<void> {
    while (this.refreshing) await this.refreshing
    this.refreshing = (async () => {
      try {
        const snapshot = await this.table.load()
        this.apply(snapshot)
        this.version = snapshot.version
      } finally {
        this.refreshing = undefined
      }
    })()
    await this.refreshing
  }

  private async poll(): Promise<void> {
    try {
      if ((await this.table.version()) !== this.version) await this.reload()
    } catch (err) {
      this.options.log.warn(`${this.options.what} refresh failed`, { cause: describeCause(err) })
    }
  }

  close(): void {
    clearInterval(this.timer)
  }
}
