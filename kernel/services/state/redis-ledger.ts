/**
 * The ledger in Redis, shared by every replica: check and reserve are one Lua script, so two
 * processes cannot both take the last of a budget. Term counters are plain numbers that expire
 * after their term; a sliding window is a sorted set of reservations by time, their amounts in
 * a hash, and their running sum, pruned by the same scripts.
 */
import crypto from 'node:crypto'
import type { Redis } from 'ioredis'
import type { BudgetLedger, LedgerLine, LedgerTicket, LedgerWindow, Reservation } from './ledger.js'
import { EPSILON } from './ledger.js'

/** Shared Lua: drops entries at or before `cutoff` from a window; returns the window's sum. */
const PRUNE = `
local function prune(log, amt, sum, cutoff)
  while true do
    local old = redis.call('ZRANGEBYSCORE', log, '-inf', cutoff, 'LIMIT', 0, 500)
    if #old == 0 then break end
    local amounts = redis.call('HMGET', amt, unpack(old))
    local sub = 0
    for _, a in ipairs(amounts) do if a then sub = sub + tonumber(a) end end
    redis.call('ZREM', log, unpack(old))
    redis.call('HDEL', amt, unpack(old))
    redis.call('INCRBYFLOAT', sum, string.format('%.17g', -sub))
  end
  if redis.call('HLEN', amt) == 0 then redis.call('DEL', sum) return 0 end
  return tonumber(redis.call('GET', sum) or '0')
end
local function add(log, amt, sum, id, at, amount, ms)
  redis.call('ZADD', log, at, id)
  redis.call('HSET', amt, id, string.format('%.17g', amount))
  redis.call('INCRBYFLOAT', sum, string.format('%.17g', amount))
  redis.call('PEXPIRE', log, ms * 2)
  redis.call('PEXPIRE', amt, ms * 2)
  redis.call('PEXPIRE', sum, ms * 2)
end
`

/**
 * KEYS: per line, 1 key (term) or 3 (sliding: log, amounts, sum).
 * ARGV: now, min, max, ticket, n, then per line: kind (t|s), limit, fixed, perUnit, ms (sliding).
 * Returns {1, units, amount…}, {0, line} (cannot afford min) or {-1, line} (term counter to seed).
 */
const RESERVE = `${PRUNE}
local now, umin, umax, ticket, n = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
local eps = ${EPSILON}
local used, first = {}, {}
local k = 1
for i = 1, n do
  local b = 5 + (i - 1) * 5
  first[i] = k
  if ARGV[b + 1] == 't' then
    local v = redis.call('GET', KEYS[k])
    if not v then return {-1, i - 1} end
    used[i] = tonumber(v)
    k = k + 1
  else
    used[i] = prune(KEYS[k], KEYS[k + 1], KEYS[k + 2], now - tonumber(ARGV[b + 5]))
    k = k + 3
  end
end
local granted = umax
for i = 1, n do
  local b = 5 + (i - 1) * 5
  local limit, fixed, per = tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3]), tonumber(ARGV[b + 4])
  local room = limit - used[i]
  if fixed + per * umin > room + eps then return {0, i - 1} end
  if per > 0 then
    local u = math.floor((room - fixed + eps) / per)
    if u < granted then granted = u end
  end
end
if granted < umin then granted = umin end
local out = {1, granted}
for i = 1, n do
  local b = 5 + (i - 1) * 5
  local amount = tonumber(ARGV[b + 3]) + tonumber(ARGV[b + 4]) * granted
  local key = first[i]
  if ARGV[b + 1] == 't' then
    redis.call('INCRBYFLOAT', KEYS[key], string.format('%.17g', amount))
  else
    add(KEYS[key], KEYS[key + 1], KEYS[key + 2], ticket, now, amount, tonumber(ARGV[b + 5]))
  end
  out[#out + 1] = string.format('%.17g', amount)
end
return out
`

/**
 * KEYS: as RESERVE. ARGV: now, ticket, n, then per line: kind, reserved, actual, ms.
 */
const SETTLE = `${PRUNE}
local now, ticket, n = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local k = 1
for i = 1, n do
  local b = 3 + (i - 1) * 4
  local reserved, actual = tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3])
  if ARGV[b + 1] == 't' then
    if redis.call('EXISTS', KEYS[k]) == 1 then redis.call('INCRBYFLOAT', KEYS[k], string.format('%.17g', actual - reserved)) end
    k = k + 1
  else
    local ms = tonumber(ARGV[b + 4])
    local log, amt, sum = KEYS[k], KEYS[k + 1], KEYS[k + 2]
    prune(log, amt, sum, now - ms)
    local old = redis.call('HGET', amt, ticket)
    if old then
      redis.call('HSET', amt, ticket, string.format('%.17g', actual))
      redis.call('INCRBYFLOAT', sum, string.format('%.17g', actual - tonumber(old)))
    elseif actual > 0 then
      add(log, amt, sum, ticket .. ':settled', now, actual, ms)
    end
    k = k + 3
  end
end
return 1
`

/** KEYS: 3 keys of a sliding window. ARGV: cutoff. */
const WINDOW_SUM = `${PRUNE}
return string.format('%.17g', prune(KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[1])))
`

type Script = (numKeys: number, ...args: (string | number)[]) => Promise<unknown>

export class RedisLedger implements BudgetLedger {
  private readonly reserveScript: Script
  private readonly settleScript: Script
  private readonly windowSum: Script

  constructor(private readonly redis: Redis, private readonly prefix: string) {
    redis.defineCommand('sluiceLedgerReserve', { lua: RESERVE })
    redis.defineCommand('sluiceLedgerSettle', { lua: SETTLE })
    redis.defineCommand('sluiceLedgerWindowSum', { lua: WINDOW_SUM })
    const commands = redis as unknown as Record<string, Script>
    this.reserveScript = commands.sluiceLedgerReserve!.bind(redis)
    this.settleScript = commands.sluiceLedgerSettle!.bind(redis)
    this.windowSum = commands.sluiceLedgerWindowSum!.bind(redis)
  }

  private keysOf(counter: string, window: LedgerWindow): string[] {
    const base = this.prefix + counter
    return window.kind === 'term' ? [base] : [`${base}:log`, `${base}:amt`, `${base}:sum`]
  }

  async reserve(lines: readonly LedgerLine[], units: { min: number; max: number }, now: number): Promise<Reservation> {
    const id = crypto.randomUUID()
    const keys = lines.flatMap((l) => this.keysOf(l.counter, l.window))
    const args: (string | number)[] = [now, units.min, units.max, id, lines.length]
    for (const l of lines) args.push(l.window.kind === 'term' ? 't' : 's', String(l.limit), String(l.fixed), String(l.perUnit), l.window.kind === 'sliding' ? l.window.ms : 0)
    // A term counter not in Redis yet is seeded (from the records) and the script runs again.
    for (let attempt = 0; attempt < 4; attempt++) {
      const result = (await this.reserveScript(keys.length, ...keys, ...args)) as (number | string)[]
      const code = Number(result[0])
      if (code === 1) {
        const granted = Number(result[1])
        const ticketLines = lines.map((l, i) => ({ counter: l.counter, window: l.window, reserved: Number(result[2 + i]) }))
        return { ok: true, units: granted, ticket: { id, lines: ticketLines } }
      }
      if (code === 0) return { ok: false, line: Number(result[1]) }
      const line = lines[Number(result[1])]!
      if (line.window.kind !== 'term') break
      const value = line.window.seed ? await line.window.seed() : 0
      await this.redis.set(this.prefix + line.counter, String(value), 'PX', Math.max(1000, line.window.expiresAt - now), 'NX')
    }
    throw new Error('budget ledger: a term counter could not be seeded')
  }

  async settle(ticket: LedgerTicket, amounts: readonly number[], now: number): Promise<void> {
    const keys = ticket.lines.flatMap((l) => this.keysOf(l.counter, l.window))
    const args: (string | number)[] = [now, ticket.id, ticket.lines.length]
    ticket.lines.forEach((l, i) => args.push(l.window.kind === 'term' ? 't' : 's', String(l.reserved), String(amounts[i] ?? l.reserved), l.window.kind === 'sliding' ? l.window.ms : 0))
    await this.settleScript(keys.length, ...keys, ...args)
  }

  async used(counter: string, window: LedgerWindow, now: number): Promise<number> {
    if (window.kind === 'term') return Number((await this.redis.get(this.prefix + counter)) ?? 0)
    return Number(await this.windowSum(3, ...this.keysOf(counter, window), now - window.ms))
  }
}
