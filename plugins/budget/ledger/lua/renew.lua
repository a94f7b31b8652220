-- After prune.lua (redis-ledger.ts puts it before this).
-- KEYS: groups of (log, amounts, sum). ARGV: lease, then per group: count, ids. Expired first, then renewed.
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
