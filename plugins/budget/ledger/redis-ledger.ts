/**
 * The ledger in Redis, shared by every replica: check and reserve are one Lua script, so two
 * processes cannot both take the last of a budget. A sliding window is a sorted set of
 * reservations by time, their amounts in a hash, and their running sum, pruned by the scripts.
 *
 * A term counter holds what was settled; its open reservations sit beside it in the same
 * shape as a window, scored by their lease's end instead of their time. The process renews the
 * leases of its open reservations (a heartbeat, not a round trip per request); a reservation
 * whose process died is dropped when its lease ends, so a crash never holds a tenant's budget
 * for the rest of the term. A settlement also counts under the request's start minute, which
 * lets `reconcile` compare the counter with the usage records.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import type { Redis } from 'ioredis'
import type { BudgetLedger, LedgerLine, LedgerTicket, LedgerWindow, ReconcileReport, Reservation } from './ledger.js'
import type { SpendScope } from '../../../kernel/contract/index.js'
import { describeCause, type Logger, type RedisTurnBatch } from '../../../kernel/contract/index.js'
import { EPSILON } from './ledger.js'

const MINUTE = 60_000

/** The Lua of the ledger's scripts, from the files beside this module (lua/; the build copies them to dist). */
const files = new Map<string, string>()
function lua(...names: string[]): string {
  return names
    .map((name) => {
      let text = files.get(name)
      if (text === undefined)
        files.set(name, (text = fs.readFileSync(new URL(`./lua/${name}.lua`, import.meta.url), 'utf8')))
      return text
    })
    .join('\n')
}

/** Reservations and settlements of one event-loop turn (batched: sections of the turn's one call). */
const RESERVE = lua('prune', 'batch-keys', 'reserve')
const SETTLE = lua('prune', 'batch-keys', 'settle')
/** A term counter's first value; leases renewed; a window's sum; a reconciliation (one call each). */
const SEED = lua('seed')
const RENEW = lua('prune', 'renew')
const WINDOW_SUM = lua('prune', 'window-sum')
const RECONCILE = lua('reconcile')

/**
 * A figure for a batch's JSON: a number where it is finite (cjson reads it as one), a string
 * where it is not (JSON has no Infinity or NaN); the scripts read both with tonumber.
 */
function jsonNumber(x: number): number | string {
  return Number.isFinite(x) ? x : String(x)
}

/** A ledger line's keys, in the order BATCH_KEYS gives them. */
type LineKeys = readonly string[]

/** Counters whose keys are kept (lineKeys); past this many the map starts again (old terms, gone tenants). */
const LINE_KEYS_KEPT = 10_000

export interface RedisLedgerOptions {
  /** How long an open term reservation outlives its process's last heartbeat. */
  leaseMs?: number
  /** Default: a tenth of the lease. 0: no heartbeat (a tool that only reads or reconciles). */
  heartbeatMs?: number
  log?: Logger
  /**
   * The turn's one script call on the same connection (kernel.redis.turn, shared with the fair
   * queue); the ledger adds its sections (LEDGER_SECTIONS) to it.
   */
  turn: RedisTurnBatch
}

/** The ledger's batched work, as sections of a turn's script call. */
export const LEDGER_SECTIONS = { settle: SETTLE, reserve: RESERVE }

/** A Lua script defined on the connection: called by EVALSHA (EVAL when Redis lost it), with the number of KEYS first. */
type Script = (numKeys: number, ...args: (string | number)[]) => Promise<unknown>

function defineScript(redis: Redis, command: string, lua: string): Script {
  redis.defineCommand(command, { lua })
  // ioredis adds the command as a method of the connection; its types cannot know the name.
  return (redis as unknown as Record<string, Script>)[command]!.bind(redis)
}

export class RedisLedger implements BudgetLedger {
  private readonly scripts: Record<'seed' | 'renew' | 'windowSum' | 'reconcile', Script>
  private readonly turn: RedisTurnBatch
  private readonly stopFlushing: () => void
  private readonly leaseMs: number
  /** Open term reservations of this process, by ticket: what the heartbeat renews. */
  private readonly open = new Map<string, readonly string[]>()
  private readonly heartbeat: NodeJS.Timeout | undefined
  /** Settlements and reservations waiting for the end of this event-loop turn (see settle, batchReserve). */
  private settling: {
    lines: LineKeys[]
    args: (string | number)[]
    resolve: () => void
    reject: (err: unknown) => void
  }[] = []
  private reserving: {
    lines: LineKeys[]
    args: (string | number)[]
    resolve: (result: (number | string)[]) => void
    reject: (err: unknown) => void
  }[] = []
  /**
   * Each line's keys, made once per counter: the same array for every request, so a batch
   * names them once by identity instead of comparing strings (see batchArgs).
   */
  private readonly lineKeys = new Map<string, LineKeys>()

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly options: RedisLedgerOptions,
  ) {
    this.leaseMs = options.leaseMs ?? 10_000
    this.scripts = {
      seed: defineScript(redis, 'sluiceLedger_seed', SEED),
      renew: defineScript(redis, 'sluiceLedger_renew', RENEW),
      windowSum: defineScript(redis, 'sluiceLedger_windowSum', WINDOW_SUM),
      reconcile: defineScript(redis, 'sluiceLedger_reconcile', RECONCILE),
    }
    this.turn = options.turn
    this.turn.define(LEDGER_SECTIONS)
    // Settlements first: Redis sees them before the reservations made after them.
    this.stopFlushing = this.turn.onFlush(() => {
      this.flushSettlements()
      this.flushReservations()
    })
    const beat = options.heartbeatMs ?? Math.max(50, Math.round(this.leaseMs / 10))
    if (beat > 0) {
      this.heartbeat = setInterval(() => void this.renew(), beat)
      this.heartbeat.unref()
    }
  }

  private termKeys(counter: string): string[] {
    const base = this.prefix + counter
    return [base, `${base}:res`, `${base}:resamt`, `${base}:ressum`]
  }

  private keysOf(counter: string, window: LedgerWindow): string[] {
    if (window.kind === 'term') return this.termKeys(counter)
    const base = this.prefix + counter
    return [`${base}:log`, `${base}:amt`, `${base}:sum`]
  }

  /** A line's keys for the batched scripts (BATCH_KEYS): a term's with its minutes. */
  private keysOfLine(counter: string, window: LedgerWindow): LineKeys {
    const name = window.kind === 'term' ? counter : `${counter}\u0000sliding`
    let keys = this.lineKeys.get(name)
    if (!keys) {
      if (this.lineKeys.size >= LINE_KEYS_KEPT) this.lineKeys.clear()
      keys =
        window.kind === 'term'
          ? [...this.termKeys(counter), `${this.prefix}${counter}:minutes`]
          : this.keysOf(counter, window)
      this.lineKeys.set(name, keys)
    }
    return keys
  }

  private get terms(): string {
    return `${this.prefix}budget:terms`
  }

  async reserve(
    lines: readonly LedgerLine[],
    units: { min: number; max: number },
    now: number,
    at = now,
  ): Promise<Reservation> {
    const id = crypto.randomUUID()
    const keys = lines.map((l) => this.keysOfLine(l.counter, l.window))
    const args: (string | number)[] = [
      now,
      jsonNumber(units.min),
      jsonNumber(units.max),
      id,
      lines.length,
      this.leaseMs,
    ]
    for (const l of lines)
      args.push(
        l.window.kind === 'term' ? 't' : 's',
        jsonNumber(l.limit),
        jsonNumber(l.fixed),
        jsonNumber(l.perUnit),
        l.window.kind === 'sliding' ? l.window.ms : 0,
      )
    // A term counter not in Redis yet is seeded (from the records) and the script runs again.
    for (let attempt = 0; attempt < 4; attempt++) {
      const result = await this.batchReserve(keys, args)
      const code = Number(result[0])
      if (code === 1) {
        const granted = Number(result[1])
        const ticketLines = lines.map((l) => ({
          counter: l.counter,
          window: l.window,
          reserved: l.fixed + l.perUnit * granted,
        }))
        const terms = lines.filter((l) => l.window.kind === 'term').map((l) => l.counter)
        if (terms.length > 0) this.open.set(id, terms)
        return { ok: true, units: granted, ticket: { id, at, lines: ticketLines } }
      }
      if (code === 0) return { ok: false, line: Number(result[1]) }
      const line = lines[Number(result[1])]!
      if (line.window.kind !== 'term') break
      await this.seed(line.counter, line.window, now)
    }
    throw new Error('budget ledger: a term counter could not be seeded')
  }

  /**
   * Reservations go out batched: those of one event-loop turn in one section of the turn's
   * script call (checked and made in order, each as if alone), after its settlements.
   */
  private batchReserve(lines: LineKeys[], args: (string | number)[]): Promise<(number | string)[]> {
    this.turn.wake()
    return new Promise((resolve, reject) => this.reserving.push({ lines, args, resolve, reject }))
  }

  private flushReservations(): void {
    if (this.reserving.length === 0) return
    const batch = this.reserving
    this.reserving = []
    const [keys, args] = this.batchArgs(batch)
    this.turn.add('reserve', keys, args).then(
      (results) => batch.forEach((r, i) => r.resolve((results as (number | string)[][])[i]!)),
      (err: unknown) => {
        for (const r of batch) r.reject(err)
      },
    )
  }

  /**
   * A batch as its section takes it (BATCH_KEYS): the distinct keys (each line's together), and
   * as the one argument a JSON array of how many requests, how many line references, the
   * references, the arguments. Built with loops, not spreads: it runs once per turn over every
   * request's lines.
   */
  private batchArgs(batch: readonly { lines: readonly LineKeys[]; args: (string | number)[] }[]): [string[], [string]] {
    const start = new Map<LineKeys, number>()
    const out: string[] = []
    const refs: number[] = []
    for (const b of batch) {
      for (const keys of b.lines) {
        let at = start.get(keys)
        if (at === undefined) {
          at = out.length
          start.set(keys, at)
          for (const key of keys) out.push(key)
        }
        refs.push(at)
      }
    }
    const args: (string | number)[] = [batch.length, refs.length]
    for (const r of refs) args.push(r)
    for (const b of batch) for (const a of b.args) args.push(a)
    return [out, [JSON.stringify(args)]]
  }

  private async seed(counter: string, window: Extract<LedgerWindow, { kind: 'term' }>, now: number): Promise<void> {
    const value = window.seed ? await window.seed() : 0
    const ttl = Math.max(1000, window.expiresAt - now)
    // Records of requests that started before the seed are in its value; reconciliation starts at the next minute.
    const until = Math.ceil(now / MINUTE) * MINUTE
    const member = window.scope ? JSON.stringify([counter, window.scope]) : ''
    const keys = [this.prefix + counter, `${this.prefix}${counter}:minutes`, this.terms]
    await this.scripts.seed(keys.length, ...keys, String(value), ttl, until, member, window.expiresAt)
  }

  /**
   * Settlements go out batched: those of one event-loop turn in one section of the turn's script
   * call (applied in order, each as if alone), so that under load a settlement costs a fraction
   * of a round trip.
   */
  settle(ticket: LedgerTicket, amounts: readonly number[], now: number): Promise<void> {
    this.open.delete(ticket.id)
    const lines = ticket.lines.map((l) => this.keysOfLine(l.counter, l.window))
    const args: (string | number)[] = [now, ticket.id, ticket.lines.length, Math.floor(ticket.at / MINUTE)]
    ticket.lines.forEach((l, i) =>
      args.push(
        l.window.kind === 'term' ? 't' : 's',
        jsonNumber(l.reserved),
        jsonNumber(amounts[i] ?? l.reserved),
        l.window.kind === 'sliding' ? l.window.ms : 0,
      ),
    )
    this.turn.wake()
    return new Promise((resolve, reject) => this.settling.push({ lines, args, resolve, reject }))
  }

  private flushSettlements(): void {
    if (this.settling.length === 0) return
    const batch = this.settling
    this.settling = []
    const [keys, args] = this.batchArgs(batch)
    this.turn.add('settle', keys, args).then(
      () => {
        for (const s of batch) s.resolve()
      },
      (err: unknown) => {
        for (const s of batch) s.reject(err)
      },
    )
  }

  /** Renews the leases of this process's open term reservations (one script for all of them). */
  private async renew(): Promise<void> {
    if (this.open.size === 0) return
    const byCounter = new Map<string, string[]>()
    for (const [id, counters] of this.open) {
      for (const c of counters) {
        const ids = byCounter.get(c)
        if (ids) ids.push(id)
        else byCounter.set(c, [id])
      }
    }
    const keys: string[] = []
    const args: (string | number)[] = [this.leaseMs]
    for (const [counter, ids] of byCounter) {
      keys.push(...this.termKeys(counter).slice(1))
      args.push(ids.length, ...ids)
    }
    try {
      await this.scripts.renew(keys.length, ...keys, ...args)
    } catch (err) {
      this.options.log?.warn('budget ledger: renewing reservations failed; they lapse when their lease ends', {
        cause: describeCause(err),
      })
    }
  }

  async used(counter: string, window: LedgerWindow, now: number): Promise<number> {
    if (window.kind === 'sliding')
      return Number(await this.scripts.windowSum(3, ...this.keysOf(counter, window), now - window.ms))
    const [base, ...reservations] = this.termKeys(counter)
    const [settled, held] = await Promise.all([
      this.redis.get(base!),
      this.scripts.windowSum(3, ...reservations, 'clock'),
    ])
    return Number(settled ?? 0) + Number(held)
  }

  /** See reconcile.ts: every term counter seeded with a scope, for requests started before `until`. */
  async reconcile(
    recorded: (scope: SpendScope, from: number, to: number) => Promise<number>,
    until: number,
  ): Promise<ReconcileReport> {
    const to = Math.floor(until / MINUTE) * MINUTE
    await this.redis.zremrangebyscore(this.terms, '-inf', String(until))
    const members = await this.redis.zrange(this.terms, '0', '-1')
    const adjusted: { counter: string; delta: number }[] = []
    for (const member of members) {
      const [counter, scope] = JSON.parse(member) as [string, SpendScope]
      const minutes = `${this.prefix}${counter}:minutes`
      const from = await this.redis.hget(minutes, 'until')
      if (from === null || Number(from) >= to) continue
      const sum = await recorded(scope, Number(from), to)
      const delta = await this.scripts.reconcile(2, this.prefix + counter, minutes, from, String(to), String(sum))
      if (delta !== null && Math.abs(Number(delta)) > EPSILON) adjusted.push({ counter, delta: Number(delta) })
    }
    return { counters: members.length, adjusted }
  }

  close(): void {
    clearInterval(this.heartbeat)
    // Sent now, before the connection is closed.
    void this.turn.flush()
    this.stopFlushing()
  }
}
