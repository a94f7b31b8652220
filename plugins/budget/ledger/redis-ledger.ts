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
import type { Redis } from 'ioredis'
import type { BudgetLedger, LedgerLine, LedgerTicket, LedgerWindow, ReconcileReport, Reservation } from './ledger.js'
import type { SpendScope } from '../../../kernel/services/stores/store.js'
import { describeCause, type Logger } from '../../../kernel/contract/index.js'
import { EPSILON } from './ledger.js'
import { LUA_FMT } from '../../../kernel/services/redis/redis-lua-format.js'
import { RedisTurn } from '../../../kernel/services/redis/redis-turn.js'
import { defineScript, type Script } from '../../../kernel/services/redis/redis-script.js'

const MINUTE = 60_000

/** Shared Lua: drops entries scored at or before `cutoff`; returns the sum of the rest. */
const PRUNE = `
${LUA_FMT}-- What this script call knows of a window (by its sum key): the sum as Redis holds it and the
-- cutoff it was pruned to. The batched scripts prune the same windows once per request; a prune
-- that removes nothing keeps the known sum, and one to an earlier cutoff has nothing to remove.
local known = {}
-- A key's expiry set once per script call for a given ttl: Redis's clock stands still inside a
-- script, so a second PEXPIRE with the same ttl would set the same instant again. A window whose
-- entries were removed may have been emptied (its keys gone with their expiry): forgotten.
local expiring = {}
local function emptied(log, amt, sum) expiring[log], expiring[amt], expiring[sum] = nil, nil, nil end
-- Set by a script that holds back its adds (RESERVE): before a prune reads a window from Redis,
-- beforeReading writes what it holds for that window if the prune could remove any of it (an
-- entry at or before the cutoff); heldTotal is what it still holds, which the sum read from
-- Redis does not count yet.
local beforeReading, heldTotal
local function prune(log, amt, sum, cutoff)
  local k = known[sum]
  if k and cutoff <= k.cutoff then return k.value end
  if beforeReading then beforeReading(log, cutoff) end
  local removed = false
  while true do
    local old = redis.call('ZRANGEBYSCORE', log, '-inf', cutoff, 'LIMIT', 0, 500)
    if #old == 0 then break end
    local amounts = redis.call('HMGET', amt, unpack(old))
    local sub = 0
    for _, a in ipairs(amounts) do if a then sub = sub + tonumber(a) end end
    redis.call('ZREM', log, unpack(old))
    redis.call('HDEL', amt, unpack(old))
    redis.call('INCRBYFLOAT', sum, fmt(-sub))
    removed = true
    emptied(log, amt, sum)
  end
  if k and not removed then k.cutoff = cutoff return k.value end
  local value
  if redis.call('HLEN', amt) == 0 then
    redis.call('DEL', sum)
    value = 0
  else
    value = tonumber(redis.call('GET', sum) or '0')
  end
  if heldTotal then value = value + heldTotal(log) end
  known[sum] = { cutoff = cutoff, value = value }
  return value
end
-- Every change to a sum goes through here, so that what is known of it stays true.
local function addToSum(sum, delta)
  local v = tonumber(redis.call('INCRBYFLOAT', sum, fmt(delta)))
  if known[sum] then known[sum].value = v end
end
local function expireOnce(key, ttl)
  if expiring[key] ~= ttl then redis.call('PEXPIRE', key, ttl) expiring[key] = ttl end
end
local function add(log, amt, sum, id, score, amount, ttl)
  redis.call('ZADD', log, score, id)
  redis.call('HSET', amt, id, fmt(amount))
  addToSum(sum, amount)
  -- An entry at or before the known cutoff would be pruned by the next prune: forget the sum.
  if known[sum] and score <= known[sum].cutoff then known[sum] = nil end
  expireOnce(log, ttl)
  expireOnce(amt, ttl)
  expireOnce(sum, ttl)
end
local t = redis.call('TIME')
local clock = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`

/**
 * A batch's arguments travel as one JSON array in ARGV[1], decoded into A: one string for
 * ioredis to write instead of some fifty arguments a request (each its own RESP string, which
 * cost the gateway more than anything else the scale-out mode adds). Numbers keep their meaning:
 * the scripts read them with tonumber as they read ARGV, and non-finite ones come as strings.
 *
 * A batch names each line's keys once (the requests of one turn mostly share their tenant's
 * counters): A[2] is how many line references follow, one per line of each request in order,
 * each where that line's keys start in KEYS (0-based: the line's keys are KEYS[L[i] + 1], ...).
 * A term line's keys: counter, its reservations' log, amounts and sum, its minutes; a sliding
 * line's: log, amounts, sum. BATCH_ARGS is the first argument after the references.
 */
const BATCH_KEYS = `
local A = cjson.decode(ARGV[1])
local L = {}
for i = 1, tonumber(A[2]) do L[i] = tonumber(A[2 + i]) end
local BATCH_ARGS = 3 + tonumber(A[2])
`

/**
 * The reservations of one event-loop turn, checked and made one after the other. A[1]: how
 * many; then per reservation: now, min, max, ticket, n, lease, then per line: kind (t|s),
 * limit, fixed, perUnit, ms (sliding). Each line's keys as BATCH_KEYS names them. Returns per
 * reservation {1, units} (each line reserved fixed + perUnit × units), {0, line} (cannot afford
 * min) or {-1, line} (term counter to seed). Leases run on Redis's clock, windows on `now`.
 */
const RESERVE = `${PRUNE}${BATCH_KEYS}
local eps = ${EPSILON}
-- The reservations' entries are held back and written once per window: one ZADD, HSET and
-- INCRBYFLOAT a window and call, not one each a request. What the script knows of a window's
-- sum counts them meanwhile, and a prune that must read a window from Redis adds them to what
-- it reads (heldTotal), or gets them written first when it could remove one (beforeReading),
-- so every check sees what adding one by one would show.
local holding, holdingOrder = {}, {}
local function writeHeld(log)
  local h = holding[log]
  if not h then return end
  holding[log] = nil
  for from = 1, #h.z, 1000 do redis.call('ZADD', log, unpack(h.z, from, math.min(from + 999, #h.z))) end
  for from = 1, #h.h, 1000 do redis.call('HSET', h.amt, unpack(h.h, from, math.min(from + 999, #h.h))) end
  addToSum(h.sum, h.total)
  -- The sum Redis now holds; entries at or before what was known to be pruned: forgotten (add's rule).
  if known[h.sum] and h.min <= known[h.sum].cutoff then known[h.sum] = nil end
  for _, ttl in ipairs(h.ttls) do
    expireOnce(log, ttl)
    expireOnce(h.amt, ttl)
    expireOnce(h.sum, ttl)
  end
end
-- Held entries are scored at their request's time or lease end, after any cutoff of the same
-- call but for a window shorter than the call: only then are they written before the prune.
beforeReading = function(log, cutoff)
  local h = holding[log]
  if h and h.min <= cutoff then writeHeld(log) end
end
heldTotal = function(log)
  local h = holding[log]
  if h then return h.total end
  return 0
end
local function addHeld(log, amt, sum, id, score, amount, ttl)
  local h = holding[log]
  if not h then
    h = { amt = amt, sum = sum, z = {}, h = {}, total = 0, min = score, ttls = {} }
    holding[log] = h
    holdingOrder[#holdingOrder + 1] = log
  end
  h.z[#h.z + 1] = score
  h.z[#h.z + 1] = id
  h.h[#h.h + 1] = id
  h.h[#h.h + 1] = fmt(amount)
  h.total = h.total + amount
  if score < h.min then h.min = score end
  if h.ttls[#h.ttls] ~= ttl then h.ttls[#h.ttls + 1] = ttl end
  local k = known[sum]
  if k then
    k.value = k.value + amount
    -- An entry at or before the known cutoff would be pruned by the next prune: that prune reads Redis.
    if score <= k.cutoff then known[sum] = nil end
  end
end
-- Term counters, read once per call: only settlements and seeds change them, not this script.
local counters = {}
local function reserve(a, l0)
  local now, umin, umax, ticket, n, lease = tonumber(A[a]), tonumber(A[a + 1]), tonumber(A[a + 2]), A[a + 3], tonumber(A[a + 4]), tonumber(A[a + 5])
  local used = {}
  for i = 1, n do
    local b, k = a + 5 + (i - 1) * 5, L[l0 + i]
    if A[b + 1] == 't' then
      local v = counters[KEYS[k + 1]]
      if v == nil then v = redis.call('GET', KEYS[k + 1]) counters[KEYS[k + 1]] = v end
      if not v then return {-1, i - 1} end
      used[i] = tonumber(v) + prune(KEYS[k + 2], KEYS[k + 3], KEYS[k + 4], clock)
    else
      used[i] = prune(KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], now - tonumber(A[b + 5]))
    end
  end
  local granted = umax
  for i = 1, n do
    local b = a + 5 + (i - 1) * 5
    local limit, fixed, per = tonumber(A[b + 2]), tonumber(A[b + 3]), tonumber(A[b + 4])
    local room = limit - used[i]
    if fixed + per * umin > room + eps then return {0, i - 1} end
    if per > 0 then
      local u = math.floor((room - fixed + eps) / per)
      if u < granted then granted = u end
    end
  end
  if granted < umin then granted = umin end
  for i = 1, n do
    local b, k = a + 5 + (i - 1) * 5, L[l0 + i]
    local amount = tonumber(A[b + 3]) + tonumber(A[b + 4]) * granted
    if A[b + 1] == 't' then
      addHeld(KEYS[k + 2], KEYS[k + 3], KEYS[k + 4], ticket, clock + lease, amount, lease * 2)
    else
      local ms = tonumber(A[b + 5])
      addHeld(KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], ticket, now, amount, ms * 2)
    end
  end
  -- The amounts are not returned: the gateway computes fixed + perUnit × granted as this does.
  return {1, granted}
end
local results, a, l = {}, BATCH_ARGS, 0
for r = 1, tonumber(A[1]) do
  local n = tonumber(A[a + 4])
  results[r] = reserve(a, l)
  a = a + 6 + n * 5
  l = l + n
end
for _, log in ipairs(holdingOrder) do writeHeld(log) end
return results
`

/**
 * The settlements of one event-loop turn, applied one after the other. A[1]: how many; then
 * per settlement: now, ticket, n, minute, then per line: kind, reserved, actual, ms. Each line's
 * keys as BATCH_KEYS names them (a term's minutes: hash of start minute → settled, 'until' →
 * reconciled up to).
 */
const SETTLE = `${PRUNE}${BATCH_KEYS}
-- Per counter, read once per call: whether it exists and its time to live. A script does not
-- see time pass, and INCRBYFLOAT keeps both.
local exists, ttls = {}, {}
-- A term line's part is gathered over the call and written once per key at the end: nothing in
-- this script reads a term counter, its minutes or its open reservations, so the end state is
-- the one settlements applied one by one would leave (up to the last bits of a float sum).
-- taking[log]: the tickets to take out of a term's open reservations (each once);
-- counting[counter]: what the settlements add to it; minutes[key][minute]: the same by start minute.
local taking, takingOrder, counting, countingOrder, minutes = {}, {}, {}, {}, {}
local function gather(log, amt, sum, ticket)
  local t = taking[log]
  if not t then
    t = { amt = amt, sum = sum, ids = {}, seen = {} }
    taking[log] = t
    takingOrder[#takingOrder + 1] = log
  end
  if not t.seen[ticket] then t.seen[ticket] = true t.ids[#t.ids + 1] = ticket end
end
local function count(counter, minuteKey, minute, actual)
  if not counting[counter] then counting[counter] = 0 countingOrder[#countingOrder + 1] = { counter, minuteKey } end
  counting[counter] = counting[counter] + actual
  local m = minutes[minuteKey]
  if not m then m = {} minutes[minuteKey] = m end
  m[minute] = (m[minute] or 0) + actual
end
-- A sliding line's part, gathered per window over the call and applied at the end with a few
-- commands a window (settleWindow) instead of a prune, HGET, HSET and INCRBYFLOAT a request.
local windows, windowOrder = {}, {}
local function window(log, amt, sum, ms)
  local w = windows[log]
  if not w then
    w = { log = log, amt = amt, sum = sum, ms = ms, s = {} }
    windows[log] = w
    windowOrder[#windowOrder + 1] = log
  end
  return w
end
-- One after the other, a settlement pruned its window to now - ms, then replaced its
-- reservation's amount by the actual one, or, when that was gone (pruned: older than the
-- window), added the actual amount at now. Entries are pruned by whoever reads a window's sum,
-- so a prune that cannot touch the settlement's own entry changes nothing anyone sees; it is
-- left to the next reader. The entries' amounts and scores are read in one HMGET and one
-- ZMSCORE; an entry that the settlements' prunes would have removed (its score at or before
-- the latest cutoff so far: a request that outlived the window) gets the prune as before, the
-- changes gathered so far written first so that the prune reads what Redis would hold.
local function settleWindow(w)
  local ids = {}
  for i, st in ipairs(w.s) do ids[i] = st.ticket end
  local olds, scores = {}, {}
  for from = 1, #ids, 500 do
    local part = { unpack(ids, from, math.min(from + 499, #ids)) }
    local o, z = redis.call('HMGET', w.amt, unpack(part)), redis.call('ZMSCORE', w.log, unpack(part))
    for j = 1, #part do olds[from + j - 1] = o[j] scores[from + j - 1] = z[j] end
  end
  -- settled[ticket]: the amount a settlement of this call gave a ticket (a ticket with two lines on one window).
  local sets, adds, delta, cutoff, settled = {}, {}, 0, nil, {}
  local function writeGathered()
    for from = 1, #sets, 1000 do redis.call('HSET', w.amt, unpack(sets, from, math.min(from + 999, #sets))) end
    if delta ~= 0 then addToSum(w.sum, delta) end
    for _, e in ipairs(adds) do add(w.log, w.amt, w.sum, e[1], e[2], e[3], w.ms * 2) end
    sets, adds, delta = {}, {}, 0
  end
  for i, st in ipairs(w.s) do
    local c = st.now - w.ms
    if not cutoff or c > cutoff then cutoff = c end
    local old = settled[st.ticket] or olds[i]
    if old and scores[i] and tonumber(scores[i]) <= cutoff then
      writeGathered()
      prune(w.log, w.amt, w.sum, cutoff)
      old = redis.call('HGET', w.amt, st.ticket)
      settled[st.ticket] = nil
    end
    if old then
      sets[#sets + 1] = st.ticket
      sets[#sets + 1] = fmt(st.actual)
      delta = delta + st.actual - tonumber(old)
      settled[st.ticket] = st.actual
    elseif st.actual > 0 then
      adds[#adds + 1] = { st.ticket .. ':settled', st.now, st.actual }
    end
  end
  writeGathered()
end
local a, l = BATCH_ARGS, 0
for _ = 1, tonumber(A[1]) do
  local now, ticket, n, minute = tonumber(A[a]), A[a + 1], tonumber(A[a + 2]), A[a + 3]
  a = a + 4
  for i = 1, n do
    local actual = tonumber(A[a + 2])
    l = l + 1
    local k = L[l]
    if A[a] == 't' then
      gather(KEYS[k + 2], KEYS[k + 3], KEYS[k + 4], ticket)
      -- Counted even when the lease ran out meanwhile: it was used.
      local counter = KEYS[k + 1]
      if exists[counter] == nil then exists[counter] = redis.call('EXISTS', counter) == 1 end
      if exists[counter] then count(counter, KEYS[k + 5], minute, actual) end
    else
      local ms = tonumber(A[a + 3])
      local w = window(KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], ms)
      w.s[#w.s + 1] = { ticket = ticket, actual = actual, now = now }
    end
    a = a + 4
  end
end
for _, log in ipairs(windowOrder) do settleWindow(windows[log]) end
-- The open reservations taken, 500 tickets a command (unpack's bound).
for _, log in ipairs(takingOrder) do
  local t = taking[log]
  local taken = 0
  for from = 1, #t.ids, 500 do
    local ids = { unpack(t.ids, from, math.min(from + 499, #t.ids)) }
    local found, olds = {}, redis.call('HMGET', t.amt, unpack(ids))
    for j, old in ipairs(olds) do
      if old then found[#found + 1] = ids[j] taken = taken + tonumber(old) end
    end
    if #found > 0 then
      redis.call('ZREM', log, unpack(found))
      redis.call('HDEL', t.amt, unpack(found))
      t.any = true
    end
  end
  if t.any then
    emptied(log, t.amt, t.sum)
    if redis.call('HLEN', t.amt) == 0 then redis.call('DEL', t.sum) else addToSum(t.sum, -taken) end
  end
end
for _, c in ipairs(countingOrder) do
  local counter, minuteKey = c[1], c[2]
  redis.call('INCRBYFLOAT', counter, fmt(counting[counter]))
  local m = minutes[minuteKey]
  if m then
    for minute, amount in pairs(m) do redis.call('HINCRBYFLOAT', minuteKey, minute, fmt(amount)) end
    minutes[minuteKey] = nil
    if not ttls[counter] then ttls[counter] = redis.call('PTTL', counter) end
    if ttls[counter] > 0 then expireOnce(minuteKey, ttls[counter]) end
  end
end
return 1
`

/** KEYS: counter, minutes, terms. ARGV: value, ttl ms, until, member ('' = not reconciled), expiresAt. Returns 1 when it seeded. */
const SEED = `
if not redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 0 end
redis.call('HSET', KEYS[2], 'until', ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
if ARGV[4] ~= '' then redis.call('ZADD', KEYS[3], ARGV[5], ARGV[4]) end
return 1
`

/** KEYS: groups of (log, amounts, sum). ARGV: lease, then per group: count, ids. Expired first, then renewed. */
const RENEW = `${PRUNE}
local lease = tonumber(ARGV[1])
local a = 2
for g = 0, #KEYS / 3 - 1 do
  local log, amt, sum = KEYS[g * 3 + 1], KEYS[g * 3 + 2], KEYS[g * 3 + 3]
  prune(log, amt, sum, clock)
  local count = tonumber(ARGV[a])
  for i = a + 1, a + count do redis.call('ZADD', log, 'XX', clock + lease, ARGV[i]) end
  a = a + count + 1
  for _, key in ipairs({ log, amt, sum }) do redis.call('PEXPIRE', key, lease * 2) end
end
return 1
`

/** KEYS: 3 keys of a window. ARGV: cutoff ('clock' for leases). Returns the sum of what is left. */
const WINDOW_SUM = `${PRUNE}
local cutoff = ARGV[1] == 'clock' and clock or tonumber(ARGV[1])
return fmt(prune(KEYS[1], KEYS[2], KEYS[3], cutoff))
`

/**
 * KEYS: counter, minutes. ARGV: until (as read), to, recorded. Settlements of requests that
 * started in [until, to) are replaced by what the records say; `until` moves to `to`. Returns
 * the change, or false when another process moved `until` first (it did the same work).
 */
const RECONCILE = `
local function fmt(x) return string.format('%.17g', x) end
if redis.call('HGET', KEYS[2], 'until') ~= ARGV[1] then return false end
local from, to = tonumber(ARGV[1]), tonumber(ARGV[2])
local settled = 0
local fields = redis.call('HGETALL', KEYS[2])
for i = 1, #fields, 2 do
  local m = tonumber(fields[i])
  if m and m * ${MINUTE} < to then
    if m * ${MINUTE} >= from then settled = settled + tonumber(fields[i + 1]) end
    redis.call('HDEL', KEYS[2], fields[i])
  end
end
local delta = tonumber(ARGV[3]) - settled
if math.abs(delta) > ${EPSILON} and redis.call('EXISTS', KEYS[1]) == 1 then redis.call('INCRBYFLOAT', KEYS[1], fmt(delta)) end
redis.call('HSET', KEYS[2], 'until', ARGV[2])
return fmt(delta)
`

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
   * The turn's one script call, shared with the fair queue (redis-state.ts); one of the
   * ledger's own by default. It must have the sections of LEDGER_SECTIONS.
   */
  turn?: RedisTurn
}

/** The ledger's batched work, as sections of a turn's script call (redis-turn.ts). */
export const LEDGER_SECTIONS = { settle: SETTLE, reserve: RESERVE }

export class RedisLedger implements BudgetLedger {
  private readonly scripts: Record<'seed' | 'renew' | 'windowSum' | 'reconcile', Script>
  private readonly turn: RedisTurn
  private readonly leaseMs: number
  /** Open term reservations of this process, by ticket: what the heartbeat renews. */
  private readonly open = new Map<string, readonly string[]>()
  private readonly heartbeat: NodeJS.Timeout | undefined
  /** Settlements and reservations waiting for the end of this event-loop turn (see settle, batchReserve). */
  private settling: { lines: LineKeys[]; args: (string | number)[]; resolve: () => void; reject: (err: unknown) => void }[] = []
  private reserving: { lines: LineKeys[]; args: (string | number)[]; resolve: (result: (number | string)[]) => void; reject: (err: unknown) => void }[] = []
  /**
   * Each line's keys, made once per counter: the same array for every request, so a batch
   * names them once by identity instead of comparing strings (see batchArgs).
   */
  private readonly lineKeys = new Map<string, LineKeys>()

  constructor(private readonly redis: Redis, private readonly prefix: string, private readonly options: RedisLedgerOptions = {}) {
    this.leaseMs = options.leaseMs ?? 10_000
    this.scripts = {
      seed: defineScript(redis, 'sluiceLedger_seed', SEED),
      renew: defineScript(redis, 'sluiceLedger_renew', RENEW),
      windowSum: defineScript(redis, 'sluiceLedger_windowSum', WINDOW_SUM),
      reconcile: defineScript(redis, 'sluiceLedger_reconcile', RECONCILE),
    }
    this.turn = options.turn ?? new RedisTurn(redis, LEDGER_SECTIONS, 'sluiceLedger_turn')
    // Settlements first: Redis sees them before the reservations made after them.
    this.turn.onFlush(() => {
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
      keys = window.kind === 'term' ? [...this.termKeys(counter), `${this.prefix}${counter}:minutes`] : this.keysOf(counter, window)
      this.lineKeys.set(name, keys)
    }
    return keys
  }

  private get terms(): string {
    return `${this.prefix}budget:terms`
  }

  async reserve(lines: readonly LedgerLine[], units: { min: number; max: number }, now: number, at = now): Promise<Reservation> {
    const id = crypto.randomUUID()
    const keys = lines.map((l) => this.keysOfLine(l.counter, l.window))
    const args: (string | number)[] = [now, jsonNumber(units.min), jsonNumber(units.max), id, lines.length, this.leaseMs]
    for (const l of lines) args.push(l.window.kind === 'term' ? 't' : 's', jsonNumber(l.limit), jsonNumber(l.fixed), jsonNumber(l.perUnit), l.window.kind === 'sliding' ? l.window.ms : 0)
    // A term counter not in Redis yet is seeded (from the records) and the script runs again.
    for (let attempt = 0; attempt < 4; attempt++) {
      const result = await this.batchReserve(keys, args)
      const code = Number(result[0])
      if (code === 1) {
        const granted = Number(result[1])
        const ticketLines = lines.map((l, i) => ({ counter: l.counter, window: l.window, reserved: l.fixed + l.perUnit * granted }))
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
    ticket.lines.forEach((l, i) => args.push(l.window.kind === 'term' ? 't' : 's', jsonNumber(l.reserved), jsonNumber(amounts[i] ?? l.reserved), l.window.kind === 'sliding' ? l.window.ms : 0))
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
      this.options.log?.warn('budget ledger: renewing reservations failed; they lapse when their lease ends', { cause: describeCause(err) })
    }
  }

  async used(counter: string, window: LedgerWindow, now: number): Promise<number> {
    if (window.kind === 'sliding') return Number(await this.scripts.windowSum(3, ...this.keysOf(counter, window), now - window.ms))
    const [base, ...reservations] = this.termKeys(counter)
    const [settled, held] = await Promise.all([this.redis.get(base!), this.scripts.windowSum(3, ...reservations, 'clock')])
    return Number(settled ?? 0) + Number(held)
  }

  /** See reconcile.ts: every term counter seeded with a scope, for requests started before `until`. */
  async reconcile(recorded: (scope: SpendScope, from: number, to: number) => Promise<number>, until: number): Promise<ReconcileReport> {
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
  }
}
