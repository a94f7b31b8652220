/**
 * The periodic purge of a Query store (expired uploads, history past its retention). The timer
 * is unref'd, so it never keeps the process alive; a failed purge is logged and tried again at
 * the next tick, since what it removes is also filtered out on every read.
 */
import type { Logger } from '../../kernel/contract/index.js'

export function startPurge(what: string, everyMs: number, purge: () => Promise<number>, log: Logger): { stop(): void } {
  let running = false
  const timer = setInterval(() => {
    if (running) return
    running = true
    purge()
      .then((n) => {
        if (n > 0) log.debug(`${what} purged`, { rows: n })
      })
      .catch((err: unknown) => log.warn(`${what} purge failed`, { error: (err as Error).message }))
      .finally(() => {
        running = false
      })
  }, everyMs)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}
