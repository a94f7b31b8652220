-- After prelude.lua (redis-queue-scripts.ts puts it before this).
-- ARGV[5]: a JSON array of triples of id, actual cost, anticipation ms: the releases of one event-loop turn,
-- applied one after the other exactly as separate scripts would be (each pumps before the next).
-- Returns, per release, 1 when a slot is now held for its key.
expire()
-- The released slots' records, read in one command (500 ids a command: unpack's bound).
local unknown = {}
local A = cjson.decode(ARGV[5])
for i = 1, #A, 3 do if slotRaw[A[i]] == nil then unknown[#unknown + 1] = A[i] end end
for from = 1, #unknown, 500 do
  local ids = { unpack(unknown, from, math.min(from + 499, #unknown)) }
  for j, raw in ipairs(redis.call('HMGET', SLOTS, unpack(ids))) do slotRaw[ids[j]] = raw end
end
local out = {}
for i = 1, #A, 3 do
  local id, actual, anticipation = A[i], tonumber(A[i + 1]), tonumber(A[i + 2])
  local s = releaseSlot(id, actual)
  local held = 0
  if s and anticipation > 0 and #hkeys(KWAIT) > 0 then
    local gk = s.g .. SEP .. s.k
    if hnum(KWAIT, gk) == 0 and not holdOf(gk) and wouldBeNext(s.g, gk) then
      setHold(gk, now + anticipation)
      held = 1
    end
  end
  pump()
  out[#out + 1] = held
end
flush()
return out
