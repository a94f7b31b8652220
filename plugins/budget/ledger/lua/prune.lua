-- The ledger's shared Lua (redis-ledger.ts puts it first in the scripts that read windows):
-- how a number is written back (fmt), and prune: drops entries scored at or before `cutoff`
-- and returns the sum of the rest.
local function fmt(x)
  if x == math.floor(x) and x > -1e15 and x < 1e15 then return string.format('%d', x) end
  return string.format('%.17g', x)
end
-- What this script call knows of a window (by its sum key): the sum as Redis holds it and the
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
