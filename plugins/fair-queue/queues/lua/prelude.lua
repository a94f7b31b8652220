-- The fair queue's shared Lua (redis-queue-scripts.ts puts it first in every script): the pool's keys,
-- the counters read once per call and flushed once, the line and the two-level Virtual Token
-- Counter (the layout of its keys: redis-queue-scripts.ts).
-- ARGV[1] base, ARGV[2] channel prefix, ARGV[3] pool, ARGV[4] lease ms. Then each script's own.
local base, channel, pool, lease = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local SEP = '\31'
local S, GC, GW, GWAIT, GRUN, GLLK = base .. 'state', base .. 'gc', base .. 'gw', base .. 'gwait', base .. 'grun', base .. 'gllk'
local KC, KWAIT, KRUN = base .. 'kc', base .. 'kwait', base .. 'krun'
local WAITERS, WEXP, SLOTS, RUN, HOLDS = base .. 'waiters', base .. 'wexp', base .. 'slots', base .. 'run', base .. 'holds'
local function kq(gk) return base .. 'kq:' .. gk end
-- The ids whose grants the running script returns in its reply (ENQUEUE sets them).
local replying = {}
-- The counter hashes (state, gc, gw, gllk, kc, gwait, grun, kwait, krun), read once per script
-- call and kept here; the scripts change the copy (false: field deleted; numbers kept as numbers,
-- formatted once, by flush) and flush() writes what differs from what was read, one HSET and one
-- HDEL per hash, before the script returns.
-- A script runs alone, so nothing else reads them in between. full[h] marks a hash read whole.
local cache, orig, dirty, full = {}, {}, {}, {}
local function hcache(h) local c = cache[h] if not c then c = {} cache[h] = c orig[h] = {} end return c end
local function hget(h, f)
  local c = hcache(h)
  local v = c[f]
  if v == nil then
    if full[h] then return false end
    v = redis.call('HGET', h, f)
    c[f] = v
    orig[h][f] = v
  end
  return v
end
local function hnum(h, f) return tonumber(hget(h, f)) or 0 end
local function hset(h, f, v)
  hcache(h)[f] = v
  local d = dirty[h] if not d then d = {} dirty[h] = d end
  d[f] = true
end
local function hdel(h, f) hset(h, f, false) end
local function hincr(h, f, d) local v = hnum(h, f) + d hset(h, f, v) return v end
-- The fields present, as a list of names (the values are then in the cache).
local function hkeys(h)
  local c = hcache(h)
  if not full[h] then
    local all = redis.call('HGETALL', h)
    for i = 1, #all, 2 do
      if c[all[i]] == nil then c[all[i]] = all[i + 1] orig[h][all[i]] = all[i + 1] end
    end
    full[h] = true
  end
  local out = {}
  for f, v in pairs(c) do if v then out[#out + 1] = f end end
  return out
end
-- Waiters decoded once per script call (false once gone), and each key's head of line.
local waiters, heads = {}, {}
local function waiter(id)
  local w = waiters[id]
  if w == nil then
    local raw = redis.call('HGET', WAITERS, id)
    if raw then w = cjson.decode(raw) else w = false end
    waiters[id] = w
  end
  return w
end
local function head(gk)
  local h = heads[gk]
  if h == nil then h = redis.call('LINDEX', kq(gk), 0) heads[gk] = h end
  return h
end
-- Holds are counted once, then kept by the code that adds or removes one; expire() reads them
-- whole, and from then on heldUntil has every live hold (a key's lookup costs no command).
local holdCount, heldUntil
local function holds() if not holdCount then holdCount = redis.call('HLEN', HOLDS) end return holdCount end
local function holdOf(gk)
  if heldUntil then return heldUntil[gk] or false end
  return redis.call('HGET', HOLDS, gk)
end
local function setHold(gk, untilMs)
  redis.call('HSET', HOLDS, gk, untilMs)
  if heldUntil then heldUntil[gk] = untilMs end
  if holdCount then holdCount = holdCount + 1 end
end
local function dropHold(gk)
  redis.call('HDEL', HOLDS, gk)
  if heldUntil then heldUntil[gk] = nil end
  if holdCount then holdCount = holdCount - 1 end
end
-- Ids granted in this call (the enqueue's reply), instead of asking RUN again.
local granted = {}
-- The slots this call granted and released, written by flush() (one HSET and ZADD for the new
-- ones, one HDEL and ZREM for the gone ones) instead of a command each; slotRaw[id] is a slot's
-- record as this call knows it (false: none), so a release reads only what it does not know.
local slotRaw, slotAdds, slotAddOrder, slotDrops = {}, {}, {}, {}

local function fmt(x)
  if x == math.floor(x) and x > -1e15 and x < 1e15 then return string.format('%d', x) end
  return string.format('%.17g', x)
end
local function flushSlots()
  if #slotDrops > 0 then
    for from = 1, #slotDrops, 500 do
      local ids = { unpack(slotDrops, from, math.min(from + 499, #slotDrops)) }
      redis.call('HDEL', SLOTS, unpack(ids))
      redis.call('ZREM', RUN, unpack(ids))
    end
    slotDrops = {}
  end
  local hs, zs = {}, {}
  for _, id in ipairs(slotAddOrder) do
    local a = slotAdds[id]
    if a then
      hs[#hs + 1] = id hs[#hs + 1] = a.raw
      zs[#zs + 1] = a.lease zs[#zs + 1] = id
    end
  end
  for from = 1, #hs, 1000 do
    redis.call('HSET', SLOTS, unpack(hs, from, math.min(from + 999, #hs)))
    redis.call('ZADD', RUN, unpack(zs, from, math.min(from + 999, #zs)))
  end
  slotAdds, slotAddOrder = {}, {}
end
local function flush()
  flushSlots()
  for h, fields in pairs(dirty) do
    local c, o = cache[h], orig[h]
    local sets, dels = {}, {}
    for f in pairs(fields) do
      local v = c[f]
      if type(v) == 'number' then v = fmt(v) end
      if o[f] == nil or o[f] ~= v then
        if v then sets[#sets + 1] = f sets[#sets + 1] = v else dels[#dels + 1] = f end
      end
      o[f] = v
    end
    if #sets > 0 then redis.call('HSET', h, unpack(sets)) end
    if #dels > 0 then redis.call('HDEL', h, unpack(dels)) end
  end
  dirty = {}
end
local function weight(g) local w = hnum(GW, g) if w <= 0 then return 1 end return w end

local function charge(g, gk, amount)
  hincr(GC, g, amount / weight(g))
  hincr(KC, gk, amount)
end

-- A waiter's counters when it leaves the line (taken out, or granted at once by its enqueue);
-- its cost is charged when it is being granted.
local function leaveLine(w, granting)
  local gk = w.g .. SEP .. w.k
  if granting then charge(w.g, gk, w.c) end
  if hincr(KWAIT, gk, -1) <= 0 then
    hdel(KWAIT, gk)
    hset(GLLK, w.g, hnum(KC, gk))
  end
  if hincr(GWAIT, w.g, -1) <= 0 then
    hdel(GWAIT, w.g)
    hset(S, 'lastLeftGroup', hnum(GC, w.g))
  end
end

-- Takes a waiter out of its line, with its lease (w.lease).
local function takeWaiter(id, granting)
  local w = waiter(id)
  if not w then return nil end
  local gk = w.g .. SEP .. w.k
  w.lease = tonumber(redis.call('ZSCORE', WEXP, id))
  redis.call('HDEL', WAITERS, id)
  waiters[id] = false
  redis.call('ZREM', WEXP, id)
  if heads[gk] == id then
    redis.call('LPOP', kq(gk))
  else
    redis.call('LREM', kq(gk), 1, id)
  end
  heads[gk] = nil
  leaveLine(w, granting)
  return w
end

-- The slot keeps the waiter's lease, not a fresh one: a waiter whose process died is granted at
-- most until that process's last heartbeat + one lease, so its slot is back within one lease.
local function grant(id, w)
  local gk = w.g .. SEP .. w.k
  hincr(S, 'running', 1)
  hincr(GRUN, w.g, 1)
  hincr(KRUN, gk, 1)
  local raw = cjson.encode({ g = w.g, k = w.k, c = w.c, p = w.p, m = w.m })
  slotRaw[id] = raw
  slotAdds[id] = { raw = raw, lease = w.lease or (now + lease) }
  slotAddOrder[#slotAddOrder + 1] = id
  granted[id] = true
  -- The enqueue script's own request learns of its grant from the reply: no message for it.
  if not replying[id] then redis.call('PUBLISH', channel .. w.p, pool .. '\n' .. id) end
end

local function releaseSlot(id, actual)
  local raw = slotRaw[id]
  if raw == nil then raw = redis.call('HGET', SLOTS, id) end
  if not raw then return nil end
  local s = cjson.decode(raw)
  local gk = s.g .. SEP .. s.k
  slotRaw[id] = false
  -- Granted in this call: never written, nothing to remove.
  if slotAdds[id] then slotAdds[id] = nil else slotDrops[#slotDrops + 1] = id end
  granted[id] = nil
  hincr(S, 'running', -1)
  if hincr(GRUN, s.g, -1) <= 0 then hdel(GRUN, s.g) end
  if hincr(KRUN, gk, -1) <= 0 then hdel(KRUN, gk) end
  if actual == nil then actual = s.c end
  charge(s.g, gk, actual - s.c)
  return s
end

-- Entries whose process stopped renewing them, and holds past their time.
local function expire()
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', RUN, '-inf', now)) do releaseSlot(id, nil) end
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', WEXP, '-inf', now)) do takeWaiter(id, false) end
  local holds, n = redis.call('HGETALL', HOLDS), 0
  heldUntil = {}
  for i = 1, #holds, 2 do
    if tonumber(holds[i + 1]) <= now then redis.call('HDEL', HOLDS, holds[i]) else n = n + 1 heldUntil[holds[i]] = holds[i + 1] end
  end
  holdCount = n
end

-- The least-served waiting group, then its least-served waiting key; its oldest request.
local function pick()
  local groups = {}
  for _, gk in ipairs(hkeys(KWAIT)) do
    local head = head(gk)
    if head then
      local w = waiter(head)
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
  while hnum(S, 'running') + holds() < capacity do
    local id = pick()
    if not id then break end
    grant(id, takeWaiter(id, true))
  end
end

-- VTC's lift: a group or key with nothing waiting or running comes back at the lowest waiting counter.
local function lift(g, gk)
  if hnum(GWAIT, g) == 0 and hnum(GRUN, g) == 0 then
    local min
    for _, other in ipairs(hkeys(GWAIT)) do
      local c = hnum(GC, other)
      if not min or c < min then min = c end
    end
    local target = min or hnum(S, 'lastLeftGroup')
    if hnum(GC, g) < target then hset(GC, g, target) end
  end
  if hnum(KWAIT, gk) == 0 and hnum(KRUN, gk) == 0 then
    local min
    local prefix = g .. SEP
    for _, other in ipairs(hkeys(KWAIT)) do
      if string.sub(other, 1, #prefix) == prefix then
        local c = hnum(KC, other)
        if not min or c < min then min = c end
      end
    end
    local target = min or hnum(GLLK, g)
    if hnum(KC, gk) < target then hset(KC, gk, target) end
  end
end

local function wouldBeNext(g, gk)
  local gc = hnum(GC, g)
  for _, other in ipairs(hkeys(GWAIT)) do
    if other ~= g and hnum(GC, other) < gc then return false end
  end
  local kc = hnum(KC, gk)
  local prefix = g .. SEP
  for _, other in ipairs(hkeys(KWAIT)) do
    if other ~= gk and string.sub(other, 1, #prefix) == prefix and hnum(KC, other) < kc then return false end
  end
  return true
end

local function touch()
  for _, k in ipairs({ S, GC, GW, GLLK, KC }) do redis.call('PEXPIRE', k, 86400000) end
end
