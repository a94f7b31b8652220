/**
 * The fair queue's Lua scripts: the same two-level Virtual Token Counter as VtcPool, with the
 * line kept in Redis so that every replica draws from one capacity and one set of counters.
 * Every entry carries a lease that its process renews; entries of a process that died expire
 * and give their slot back. Keys are built inside the scripts from one base per pool, so this
 * needs a single Redis (or Sentinel), not Redis Cluster.
 *
 * Layout under `<prefix>q:<pool>:` — state (hash: running, capacity, seq, lastLeftGroup);
 * gc/gw/gwait/grun/gllk (per group: counter, weight, waiting, running, last-left key counter);
 * kc/kwait/krun (per group+key); waiters (hash id → JSON) and wexp (zset id → lease);
 * slots (hash id → JSON) and run (zset id → lease); holds (hash group+key → until);
 * kq:<group+key> (list: that key's waiters, oldest first).
 */

/** ARGV[1] base, ARGV[2] channel prefix, ARGV[3] pool, ARGV[4] lease ms. Then each script's own. */
const PRELUDE = `
local base, channel, pool, lease = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local SEP = '\\31'
local S, GC, GW, GWAIT, GRUN, GLLK = base .. 'state', base .. 'gc', base .. 'gw', base .. 'gwait', base .. 'grun', base .. 'gllk'
local KC, KWAIT, KRUN = base .. 'kc', base .. 'kwait', base .. 'krun'
local WAITERS, WEXP, SLOTS, RUN, HOLDS = base .. 'waiters', base .. 'wexp', base .. 'slots', base .. 'run', base .. 'holds'
local function kq(gk) return base .. 'kq:' .. gk end
-- The ids whose grants the running script returns in its reply (ENQUEUE sets them).
local replying = {}
local function hnum(h, f) return tonumber(redis.call('HGET', h, f)) or 0 end
local function fmt(x) return string.format('%.17g', x) end
local function weight(g) local w = hnum(GW, g) if w <= 0 then return 1 end return w end

local function charge(g, gk, amount)
  redis.call('HINCRBYFLOAT', GC, g, fmt(amount / weight(g)))
  redis.call('HINCRBYFLOAT', KC, gk, fmt(amount))
end

-- Takes a waiter out of its line, with its lease (w.lease); its cost is charged when it is being granted.
local function takeWaiter(id, granting)
  local raw = redis.call('HGET', WAITERS, id)
  if not raw then return nil end
  local w = cjson.decode(raw)
  local gk = w.g .. SEP .. w.k
  w.lease = tonumber(redis.call('ZSCORE', WEXP, id))
  redis.call('HDEL', WAITERS, id)
  redis.call('ZREM', WEXP, id)
  redis.call('LREM', kq(gk), 1, id)
  if granting then charge(w.g, gk, w.c) end
  if redis.call('HINCRBY', KWAIT, gk, -1) <= 0 then
    redis.call('HDEL', KWAIT, gk)
    redis.call('HSET', GLLK, w.g, fmt(hnum(KC, gk)))
  end
  if redis.call('HINCRBY', GWAIT, w.g, -1) <= 0 then
    redis.call('HDEL', GWAIT, w.g)
    redis.call('HSET', S, 'lastLeftGroup', fmt(hnum(GC, w.g)))
  end
  return w
end

-- The slot keeps the waiter's lease, not a fresh one: a waiter whose process died is granted at
-- most until that process's last heartbeat + one lease, so its slot is back within one lease.
local function grant(id, w)
  local gk = w.g .. SEP .. w.k
  redis.call('HINCRBY', S, 'running', 1)
  redis.call('HINCRBY', GRUN, w.g, 1)
  redis.call('HINCRBY', KRUN, gk, 1)
  redis.call('HSET', SLOTS, id, cjson.encode({ g = w.g, k = w.k, c = w.c, p = w.p, m = w.m }))
  redis.call('ZADD', RUN, w.lease or (now + lease), id)
  -- The enqueue script's own request learns of its grant from the reply: no message for it.
  if not replying[id] then redis.call('PUBLISH', channel .. w.p, pool .. '\\n' .. id) end
end

local function releaseSlot(id, actual)
  local raw = redis.call('HGET', SLOTS, id)
  if not raw then return nil end
  local s = cjson.decode(raw)
  local gk = s.g .. SEP .. s.k
  redis.call('HDEL', SLOTS, id)
  redis.call('ZREM', RUN, id)
  redis.call('HINCRBY', S, 'running', -1)
  if redis.call('HINCRBY', GRUN, s.g, -1) <= 0 then redis.call('HDEL', GRUN, s.g) end
  if redis.call('HINCRBY', KRUN, gk, -1) <= 0 then redis.call('HDEL', KRUN, gk) end
  if actual == nil then actual = s.c end
  charge(s.g, gk, actual - s.c)
  return s
end

-- Entries whose process stopped renewing them, and holds past their time.
local function expire()
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', RUN, '-inf', now)) do releaseSlot(id, nil) end
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', WEXP, '-inf', now)) do takeWaiter(id, false) end
  local holds = redis.call('HGETALL', HOLDS)
  for i = 1, #holds, 2 do
    if tonumber(holds[i + 1]) <= now then redis.call('HDEL', HOLDS, holds[i]) end
  end
end

-- The least-served waiting group, then its least-served waiting key; its oldest request.
local function pick()
  local entries = redis.call('HGETALL', KWAIT)
  local groups = {}
  for i = 1, #entries, 2 do
    local gk = entries[i]
    local head = redis.call('LINDEX', kq(gk), 0)
    if head then
      local w = cjson.decode(redis.call('HGET', WAITERS, head))
      local grp = groups[w.g]
      if not grp then
        grp = { c = hnum(GC, w.g), s = w.s }
        groups[w.g] = grp
      end
      if w.s < grp.s then grp.s = w.s end
      local kc = hnum(KC, gk)
      if not grp.best or kc < grp.best.c or (kc == grp.best.c and w.s < grp.best.s) then grp.best = { c = kc, s = w.s, id = head } end
    end
  end
  local best
  for _, grp in pairs(groups) do
    if not best or grp.c < best.c or (grp.c == best.c and grp.s < best.s) then best = grp end
  end
  if best then return best.best.id end
  return nil
end

local function pump()
  local capacity = hnum(S, 'capacity')
  while hnum(S, 'running') + redis.call('HLEN', HOLDS) < capacity do
    local id = pick()
    if not id then break end
    grant(id, takeWaiter(id, true))
  end
end

-- VTC's lift: a group or key with nothing waiting or running comes back at the lowest waiting counter.
local function lift(g, gk)
  if hnum(GWAIT, g) == 0 and hnum(GRUN, g) == 0 then
    local min
    local gw = redis.call('HGETALL', GWAIT)
    for i = 1, #gw, 2 do
      local c = hnum(GC, gw[i])
      if not min or c < min then min = c end
    end
    local target = min or hnum(S, 'lastLeftGroup')
    if hnum(GC, g) < target then redis.call('HSET', GC, g, fmt(target)) end
  end
  if hnum(KWAIT, gk) == 0 and hnum(KRUN, gk) == 0 then
    local min
    local prefix = g .. SEP
    local kw = redis.call('HGETALL', KWAIT)
    for i = 1, #kw, 2 do
      if string.sub(kw[i], 1, #prefix) == prefix then
        local c = hnum(KC, kw[i])
        if not min or c < min then min = c end
      end
    end
    local target = min or hnum(GLLK, g)
    if hnum(KC, gk) < target then redis.call('HSET', KC, gk, fmt(target)) end
  end
end

local function wouldBeNext(g, gk)
  local gc = hnum(GC, g)
  local gw = redis.call('HGETALL', GWAIT)
  for i = 1, #gw, 2 do
    if gw[i] ~= g and hnum(GC, gw[i]) < gc then return false end
  end
  local kc = hnum(KC, gk)
  local prefix = g .. SEP
  local kw = redis.call('HGETALL', KWAIT)
  for i = 1, #kw, 2 do
    if kw[i] ~= gk and string.sub(kw[i], 1, #prefix) == prefix and hnum(KC, kw[i]) < kc then return false end
  end
  return true
end

local function touch()
  for _, k in ipairs({ S, GC, GW, GLLK, KC }) do redis.call('PEXPIRE', k, 86400000) end
end
`

/**
 * ARGV[5..]: per request (the enqueues of one event-loop turn, put in line one after the other
 * exactly as separate scripts would), id, group, key, weight, cost, model, process, capacity,
 * seq. `seq` is empty for a new request; a waiter that lost its entry (its process was cut from
 * Redis past its lease) comes back with its old one, and goes back to its old place in its
 * key's line, its counters kept. Returns per request {1 when granted by the end of the script,
 * seq}; those grants are not published (the reply tells).
 */
export const ENQUEUE = `${PRELUDE}
local function enqueue(a)
  local id, g, k, w, cost, model, process, capacity, oldSeq = ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], tonumber(ARGV[a + 4]), ARGV[a + 5], ARGV[a + 6], ARGV[a + 7], tonumber(ARGV[a + 8])
  redis.call('HSET', S, 'capacity', capacity)
  redis.call('HSET', GW, g, w)
  local gk = g .. SEP .. k
  local held = redis.call('HGET', HOLDS, gk)
  if not held and not oldSeq then lift(g, gk) end
  local seq = oldSeq or redis.call('HINCRBY', S, 'seq', 1)
  redis.call('HSET', WAITERS, id, cjson.encode({ g = g, k = k, c = cost, s = seq, p = process, m = model }))
  redis.call('ZADD', WEXP, now + lease, id)
  local placed = false
  if oldSeq then
    for _, other in ipairs(redis.call('LRANGE', kq(gk), 0, -1)) do
      local raw = redis.call('HGET', WAITERS, other)
      if raw and cjson.decode(raw).s > seq then
        redis.call('LINSERT', kq(gk), 'BEFORE', other, id)
        placed = true
        break
      end
    end
  end
  if not placed then redis.call('RPUSH', kq(gk), id) end
  redis.call('HINCRBY', KWAIT, gk, 1)
  redis.call('HINCRBY', GWAIT, g, 1)
  if held then
    -- The slot kept for this key: served now.
    redis.call('HDEL', HOLDS, gk)
    grant(id, takeWaiter(id, true))
  end
  pump()
  return seq
end
for i = 5, #ARGV, 9 do replying[ARGV[i]] = true end
expire()
local seqs = {}
for i = 5, #ARGV, 9 do seqs[#seqs + 1] = enqueue(i) end
touch()
local out = {}
for n, seq in ipairs(seqs) do
  local id = ARGV[5 + (n - 1) * 9]
  if redis.call('ZSCORE', RUN, id) then out[n] = {1, seq} else out[n] = {0, seq} end
end
return out
`

/**
 * ARGV[5..]: triples of id, actual cost, anticipation ms: the releases of one event-loop turn,
 * applied one after the other exactly as separate scripts would be (each pumps before the next).
 * Returns, per release, 1 when a slot is now held for its key.
 */
export const RELEASE = `${PRELUDE}
expire()
local out = {}
for i = 5, #ARGV, 3 do
  local id, actual, anticipation = ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
  local s = releaseSlot(id, actual)
  local held = 0
  if s and anticipation > 0 and redis.call('HLEN', WAITERS) > 0 then
    local gk = s.g .. SEP .. s.k
    if hnum(KWAIT, gk) == 0 and not redis.call('HGET', HOLDS, gk) and wouldBeNext(s.g, gk) then
      redis.call('HSET', HOLDS, gk, now + anticipation)
      held = 1
    end
  end
  pump()
  out[#out + 1] = held
end
return out
`

/** ARGV[5]: id. Returns 'cancelled' (it was waiting), 'running' (granted meanwhile) or 'gone'. */
export const CANCEL = `${PRELUDE}
local id = ARGV[5]
if redis.call('HEXISTS', WAITERS, id) == 1 then
  takeWaiter(id, false)
  return 'cancelled'
end
if redis.call('ZSCORE', RUN, id) then return 'running' end
return 'gone'
`

/**
 * ARGV[5..]: ids this process holds. Expires the dead first (an entry past its lease is gone,
 * whoever looks first), renews the rest, pumps; returns {ids now running, ids gone: neither
 * waiting nor running, so their process lost them}.
 */
export const HEARTBEAT = `${PRELUDE}
expire()
for i = 5, #ARGV do
  redis.call('ZADD', WEXP, 'XX', now + lease, ARGV[i])
  redis.call('ZADD', RUN, 'XX', now + lease, ARGV[i])
end
pump()
local running, gone = {}, {}
for i = 5, #ARGV do
  local id = ARGV[i]
  if redis.call('ZSCORE', RUN, id) then running[#running + 1] = id
  elseif redis.call('HEXISTS', WAITERS, id) == 0 then gone[#gone + 1] = id end
end
return {running, gone}
`
