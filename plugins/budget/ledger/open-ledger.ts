/**
 * The budget plugin's state: the ledger for the life of the process, in process memory or, when
 * the kernel has Redis, shared by every replica; with a shared ledger, the periodic
 * reconciliation of term budgets with the usage records (`stores.reconcile_every_ms`). Settings
 * are read from server.yaml when the plugin first loads (a reload keeps them, as it keeps the ledger).
 */
import type { Kernel } from '../../../kernel/contract/index.js'
import type { BudgetLedger } from './ledger.js'
import { MemoryLedger } from './memory-ledger.js'
import { reconcileLag, startReconciler } from './reconcile.js'

export interface BudgetState {
  readonly ledger: BudgetLedger
  close(): void
}

export async function openLedger(kernel: Kernel): Promise<BudgetState> {
  const stores = kernel.config.server.stores
  const now = kernel.now
  let ledger: BudgetLedger & { close(): void }
  if (kernel.redis) {
    // Loaded only with Redis: the embedded default needs none of the scripts.
    const { RedisLedger } = await import('./redis-ledger.js')
    ledger = new RedisLedger(kernel.redis.client, kernel.redis.prefix, {
      leaseMs: kernel.redis.leaseMs,
      log: kernel.log,
      turn: kernel.redis.turn,
    })
  } else {
    ledger = new MemoryLedger(now)
  }
  const reconciler = startReconciler({
    ledger,
    records: kernel.records,
    everyMs: stores.reconcile_every_ms ?? 300_000,
    lagMs: reconcileLag(kernel.config.server.limits.request_timeout_ms, stores.records_flush_ms ?? 1000),
    now,
    log: kernel.log,
  })
  return {
    ledger,
    close() {
      reconciler.stop()
      ledger.close()
    },
  }
}
