/**
 * Shared state: the budget ledger and the fair queues. In process memory by default (one
 * Sluice process); in Redis when `stores.redis_url` is set, so that replicas behind a load
 * balancer keep the same budgets, token windows and queue.
 */
import type { BudgetLedger } from '../../../plugins/budget/ledger/ledger.js'
import type { FairQueues } from '../../../plugins/fair-queue/queues/fair-queues.js'

export interface SharedState {
  readonly kind: 'memory' | 'redis'
  readonly ledger: BudgetLedger
  readonly queues: FairQueues
  /** A cheap round trip (Redis PING), for the readiness probe; rejects when the state does not answer. */
  ping(): Promise<void>
  close(): Promise<void>
}
