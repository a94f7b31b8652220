/**
 * The in-process ledger (one Sluice process). Check and reserve run in one synchronous block,
 * which is atomic on Node's single thread. A term counter seen for the first time is seeded
 * (from the usage records, so a restart does not hand out a fresh month).
 */
import crypto from 'node:crypto'
import type { BudgetLedger, LedgerLine, LedgerTicket, LedgerWindow, Reservation } from './ledger.js'
import { grant } from './ledger.js'

interface TermCounter {
  value: number
  expiresAt: number
}

/** The last `ms` of reservations, oldest first, with their running sum. */
class SlidingLog {
  constructor(readonly ms: number) {}
  entries: { id: string; at: number; amount: number }[] = []
  head = 0
  sum = 0
  byId = new Map<string, { id: string; at: number; amount: number }>()

  prune(now: number, ms: number): void {
    while (this.head < this.entries.length && this.entries[this.head]!.at <= now - ms) {
      const e = this.entries[this.head++]!
      this.sum -= e.amount
      this.byId.delete(e.id)
    }
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head)
      this.head = 0
    }
    if (this.byId.size === 0) this.sum = 0
  }

  add(id: string, at: number, amount: number): void {
    const e = { id, at, amount }
    this.entries.push(e)
    this.byId.set(id, e)
    this.sum += amount
  }
}

export class MemoryLedger implements BudgetLedger {
  private readonly terms = new Map<string, TermCounter>()
  private readonly seeding = new Map<string, Promise<void>>()
  private readonly logs = new Map<string, SlidingLog>()
  private readonly sweeper: NodeJS.Timeout

  /** `now`: the clock of the budgets (the kernel's), for dropping counters past their term. */
  constructor(now: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(now()), 60_000)
    this.sweeper.unref()
  }

  private async seed(counter: string, window: Extract<LedgerWindow, { kind: 'term' }>): Promise<void> {
    if (this.terms.has(counter)) return
    let pending = this.seeding.get(counter)
    if (!pending) {
      pending = (async () => {
        const value = window.seed ? await window.seed() : 0
        if (!this.terms.has(counter)) this.terms.set(counter, { value, expiresAt: window.expiresAt })
      })().finally(() => this.seeding.delete(counter))
      this.seeding.set(counter, pending)
    }
    await pending
  }

  private current(line: { counter: string; window: LedgerWindow }, now: number): number {
    if (line.window.kind === 'term') return this.terms.get(line.counter)?.value ?? 0
    const log = this.logs.get(line.counter)
    if (!log) return 0
    log.prune(now, line.window.ms)
    return log.sum
  }

  async reserve(
    lines: readonly LedgerLine[],
    units: { min: number; max: number },
    now: number,
    at = now,
  ): Promise<Reservation> {
    for (const line of lines)
      if (line.window.kind === 'term' && !this.terms.has(line.counter)) await this.seed(line.counter, line.window)
    // From here to the return nothing awaits: check and reserve are one step.
    const used = lines.map((line) => this.current(line, now))
    const decision = grant(lines, used, units)
    if (!decision.ok) return decision
    const id = crypto.randomUUID()
    const ticketLines = lines.map((line) => {
      const amount = line.fixed + line.perUnit * decision.units
      this.add(line.counter, line.window, id, amount, now)
      return { counter: line.counter, window: line.window, reserved: amount }
    })
    return { ok: true, units: decision.units, ticket: { id, at, lines: ticketLines } }
  }

  private add(counter: string, window: LedgerWindow, id: string, amount: number, now: number): void {
    if (window.kind === 'term') {
      const term = this.terms.get(counter)
      if (term) term.value += amount
      else this.terms.set(counter, { value: amount, expiresAt: window.expiresAt })
      return
    }
    let log = this.logs.get(counter)
    if (!log) {
      log = new SlidingLog(window.ms)
      this.logs.set(counter, log)
    }
    log.add(id, now, amount)
  }

  async settle(ticket: LedgerTicket, amounts: readonly number[], now: number): Promise<void> {
    ticket.lines.forEach((line, i) => {
      const actual = amounts[i] ?? line.reserved
      if (line.window.kind === 'term') {
        const term = this.terms.get(line.counter)
        if (term) term.value += actual - line.reserved
        return
      }
      const log = this.logs.get(line.counter)
      log?.prune(now, line.window.ms)
      const entry = log?.byId.get(ticket.id)
      if (log && entry) {
        log.sum += actual - entry.amount
        entry.amount = actual
      } else if (actual > 0) {
        // The reservation left the window (a long wait or a long stream): the tokens count now.
        this.add(line.counter, line.window, `${ticket.id}:settled`, actual, now)
      }
    })
  }

  async used(counter: string, window: LedgerWindow, now: number): Promise<number> {
    return this.current({ counter, window }, now)
  }

  private sweep(now: number): void {
    for (const [name, term] of this.terms) if (term.expiresAt <= now) this.terms.delete(name)
    for (const [name, log] of this.logs) {
      log.prune(now, log.ms)
      if (log.byId.size === 0) this.logs.delete(name)
    }
  }

  close(): void {
    clearInterval(this.sweeper)
  }
}
