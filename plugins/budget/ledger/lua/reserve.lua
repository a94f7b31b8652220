-- After prune.lua and batch-keys.lua (redis-ledger.ts puts them before this).
-- The reservations of one event-loop turn, checked and made one after the other. A[1]: how
-- many; then per reservation: now, min, max, ticket, n, lease, then per line: kind (t|s),
-- limit, fixed, perUnit, ms (sliding). Each line's keys as BATCH_KEYS names them. Returns per
-- reservation {1, units} (each line reserved fixed + perUnit × units), {0, line} (cannot afford
-- min) or {-1, line} (term counter to seed). Leases run on Redis's clock, windows on `now`.
-- EPSILON of ledger.ts: float sums of prices are not exact; a budget is reached within it.
local eps = 1e-9
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
