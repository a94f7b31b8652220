-- After prelude.lua (redis-queue-scripts.ts puts it before this).
-- ARGV[5..]: ids this process holds. Expires the dead first (an entry past its lease is gone,
-- whoever looks first), renews the rest, pumps; returns {ids now running, ids gone: neither
-- waiting nor running, so their process lost them}.
expire()
for i = 5, #ARGV do
  redis.call('ZADD', WEXP, 'XX', now + lease, ARGV[i])
  redis.call('ZADD', RUN, 'XX', now + lease, ARGV[i])
end
pump()
flush()
local running, gone = {}, {}
for i = 5, #ARGV do
  local id = ARGV[i]
  if redis.call('ZSCORE', RUN, id) then running[#running + 1] = id
  elseif redis.call('HEXISTS', WAITERS, id) == 0 then gone[#gone + 1] = id end
end
return {running, gone}
