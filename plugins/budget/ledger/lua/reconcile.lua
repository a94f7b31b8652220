-- KEYS: counter, minutes. ARGV: until (as read), to, recorded. Settlements of requests that
-- started in [until, to) are replaced by what the records say; `until` moves to `to`. Returns
-- the change, or false when another process moved `until` first (it did the same work).
-- A minute is 60000 ms (MINUTE of redis-ledger.ts); 1e-9 is EPSILON of ledger.ts.
local function fmt(x) return string.format('%.17g', x) end
if redis.call('HGET', KEYS[2], 'until') ~= ARGV[1] then return false end
local from, to = tonumber(ARGV[1]), tonumber(ARGV[2])
local settled = 0
local fields = redis.call('HGETALL', KEYS[2])
for i = 1, #fields, 2 do
  local m = tonumber(fields[i])
  if m and m * 60000 < to then
    if m * 60000 >= from then settled = settled + tonumber(fields[i + 1]) end
    redis.call('HDEL', KEYS[2], fields[i])
  end
end
local delta = tonumber(ARGV[3]) - settled
if math.abs(delta) > 1e-9 and redis.call('EXISTS', KEYS[1]) == 1 then redis.call('INCRBYFLOAT', KEYS[1], fmt(delta)) end
redis.call('HSET', KEYS[2], 'until', ARGV[2])
return fmt(delta)
