-- After prelude.lua (redis-queue-scripts.ts puts it before this).
-- ARGV[5]: id. Returns 'cancelled' (it was waiting), 'running' (granted meanwhile) or 'gone'.
local id = ARGV[5]
if redis.call('HEXISTS', WAITERS, id) == 1 then
  takeWaiter(id, false)
  flush()
  return 'cancelled'
end
if redis.call('ZSCORE', RUN, id) then return 'running' end
return 'gone'
