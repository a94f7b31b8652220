/**
 * Reconciliation of the term budgets with the usage records, for a ledger shared by replicas
 * (Redis). Each settlement is counted under its request's start minute; a pass takes the
 * minutes no request can still be running in or waiting to be written for (older than the
 * `lag`), and replaces what was settled for them by what the records say. That undoes the
 * two ways a counter and the records part: a settlement lost (Redis unreachable when the
 * request ended: the reservation lapsed and nothing was counted) and records lost (a replica
 * killed with records still in its buffer: the counter counted what no record shows). The
 * records are the account: after a crash the counter never holds more than they do.
 *
 * It runs in the gateway (`stores.reconcile_every_ms`) and as `npm run reconcile`; passes of
 * several replicas do not add up, as each minute range is taken once (see RECONCILE).
 */
import type { BudgetLedger, ReconcileReport } from './ledger.js'
import type { SpendScope } from '../../../kernel/contract/index.js'
import { describeCause, type Logger } from '../../../kernel/contract/index.js'

export type Recorded = { spent(scope: SpendScope, since: number, until?: number): Promise<number> }

/**
 * How old a minute must be before it is reconciled: the longest request (its time limit, the
 * queue included), then two record batches, then a minute for clocks and retries.
 */
export function reconcileLag(requestTimeoutMs: number, flushMs: number): number {
  return requestTimeoutMs + 2 * flushMs + 60_000
}

/** One pass; undefined when the ledger needs none (in process memory, started from the records). */
export async function reconcileTerms(
  ledger: BudgetLedger,
  records: Recorded,
  until: number,
): Promise<ReconcileReport | undefined> {
  if (!ledger.reconcile) return undefined
  return ledger.reconcile((scope, from, to) => records.spent(scope, from, to), until)
}

/** The periodic check of a running gateway. */
export function startReconciler(options: {
  ledger: BudgetLedger
  records: Recorded
  everyMs: number
  lagMs: number
  now: () => number
  log: Logger
}): { stop(): void } {
  const { ledger, records, log } = options
  if (!ledger.reconcile || options.everyMs <= 0) return { stop: () => undefined }
  let running = false
  const timer = setInterval(async () => {
    if (running) return
    running = true
    try {
      const report = await reconcileTerms(ledger, records, options.now() - options.lagMs)
      for (const a of report?.adjusted ?? [])
        log.warn('term budget reconciled with the records', { counter: a.counter, delta: a.delta })
    } catch (err) {
      log.warn('term budget reconciliation failed; the next pass retries', { cause: describeCause(err) })
    } finally {
      running = false
    }
  }, options.everyMs)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}
