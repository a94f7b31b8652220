/**
 * The request windows in Redis, shared by every replica, so a key's limit is global: the
 * requests of one event-loop turn are counted by one section (lua/take.lua) of the turn's one
 * script call, which the budget ledger and the fair queue share, so a limited key costs no
 * round trip of its own. Keys are built inside the script (`<prefix>rpm:<key id>`), so this
 * needs a single Redis (or Sentinel), like the fair queue.
 *
 * When Redis fails the request is let through and the failure logged: a request limit guards
 * against floods, and the budgets, which fail closed, still hold the spending.
 */
import fs from 'node:fs'
import { describeCause, type Logger, type RedisTurnBatch } from '../../../kernel/contract/index.js'
import type { RequestWindows } from './request-windows.js'

const SECTION = 'auth-request-windows'
const TAKE = fs.readFileSync(new URL('./lua/take.lua', import.meta.url), 'utf8')

interface Pending {
  keyId: string
  limit: number
  now: number
  resolve: (wait: number) => void
}

export class RedisRequestWindows implements RequestWindows {
  private pending: Pending[] = []
  private readonly stopFlushing: () => void

  constructor(
    private readonly turn: RedisTurnBatch,
    private readonly prefix: string,
    private readonly log: Logger,
  ) {
    turn.define({ [SECTION]: TAKE })
    this.stopFlushing = turn.onFlush(() => this.flush())
  }

  take(keyId: string, limit: number, now: number): Promise<number> {
    if (this.pending.length === 0) this.turn.wake()
    return new Promise((resolve) => this.pending.push({ keyId, limit, now, resolve }))
  }

  private flush(): void {
    const batch = this.pending
    if (batch.length === 0) return
    this.pending = []
    const args: (string | number)[] = [this.prefix]
    for (const p of batch) args.push(p.keyId, p.limit, p.now)
    this.turn.add(SECTION, [], args).then(
      (waits) => batch.forEach((p, i) => p.resolve(Number((waits as unknown[])[i] ?? 0))),
      (err: unknown) => {
        this.log.warn('request limits: Redis did not answer; the requests are let through', {
          requests: batch.length,
          cause: describeCause(err),
        })
        for (const p of batch) p.resolve(0)
      },
    )
  }

  async close(): Promise<void> {
    await this.turn.flush()
    this.stopFlushing()
  }
}
