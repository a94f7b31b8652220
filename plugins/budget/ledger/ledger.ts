/**
 * The budget ledger: term budgets (indicative value per day, week or month) and per-minute
 * token windows, for every key and group. A request reserves the most it can cost before it
 * runs and settles to what it really cost when it ends, so concurrent requests cannot spend
 * more than a budget: the check and the reservation are one atomic step (one synchronous
 * block in memory, one Lua script in Redis).
 *
 * A reservation has a fixed part (the prompt) and a part that grows with `units` (completion
 * tokens). The ledger grants the most units between `min` and `max` that every line can
 * afford, so a request that would overrun a budget is shortened rather than refused while at
 * least `min` units fit.
 */
import type { SpendScope } from '../../../kernel/contract/index.js'

export type LedgerWindow =
  /**
   * A counter for one term (its name carries the period); kept until `expiresAt`. `seed` gives
   * its start value (the records' sum); `scope` names whose records it counts, so that a shared
   * ledger can reconcile it with them.
   */
  | {
      readonly kind: 'term'
      readonly expiresAt: number
      readonly seed?: () => Promise<number>
      readonly scope?: SpendScope
    }
  /** A sliding window of the last `ms` milliseconds (the per-minute token budget). */
  | { readonly kind: 'sliding'; readonly ms: number }

export interface LedgerLine {
  /** The counter's name, unique per budget and period, e.g. `term:key:alice:2026-05`. */
  readonly counter: string
  readonly limit: number
  /** The line's amount for `units` is fixed + perUnit × units. */
  readonly fixed: number
  readonly perUnit: number
  readonly window: LedgerWindow
}

export interface LedgerTicket {
  readonly id: string
  /** The request's start (epoch ms): its settlement is counted for that minute, as its record is. */
  readonly at: number
  readonly lines: readonly { readonly counter: string; readonly window: LedgerWindow; readonly reserved: number }[]
}

export type Reservation =
  | { readonly ok: true; readonly units: number; readonly ticket: LedgerTicket }
  /** `line`: the index of the first line that cannot afford `min` units. */
  | { readonly ok: false; readonly line: number }

export interface BudgetLedger {
  /** `at`: the request's start, if not `now` (see LedgerTicket). */
  reserve(
    lines: readonly LedgerLine[],
    units: { min: number; max: number },
    now: number,
    at?: number,
  ): Promise<Reservation>
  /** Replaces each line's reservation with the actual amount (same order as the lines). */
  settle(ticket: LedgerTicket, amounts: readonly number[], now: number): Promise<void>
  /** What a counter holds now (used plus reserved): for tests and the admin API. */
  used(counter: string, window: LedgerWindow, now: number): Promise<number>
  /**
   * Brings the term counters in line with the records, for requests that started before
   * `until` (see reconcile.ts). Only a ledger that outlives its processes needs it: the
   * in-process one starts from the records each time.
   */
  reconcile?(
    recorded: (scope: SpendScope, from: number, to: number) => Promise<number>,
    until: number,
  ): Promise<ReconcileReport>
}

export interface ReconcileReport {
  /** Term counters looked at. */
  readonly counters: number
  /** Counters changed, with the change (records minus settlements). */
  readonly adjusted: readonly { readonly counter: string; readonly delta: number }[]
}

/** Float sums of prices are not exact; a budget is "reached" within this tolerance. */
export const EPSILON = 1e-9

/**
 * The grant rule both ledgers follow: the most units in [min, max] that every line affords,
 * or the first line that cannot afford `min`. `used[i]` is line i's current total.
 */
export function grant(
  lines: readonly LedgerLine[],
  used: readonly number[],
  units: { min: number; max: number },
): { ok: true; units: number } | { ok: false; line: number } {
  let granted = units.max
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const room = line.limit - used[i]!
    if (line.fixed + line.perUnit * units.min > room + EPSILON) return { ok: false, line: i }
    if (line.perUnit > 0) granted = Math.min(granted, Math.floor((room - line.fixed + EPSILON) / line.perUnit))
  }
  return { ok: true, units: Math.max(units.min, granted) }
}
