-- After prelude.lua (redis-queue-scripts.ts puts it before this).
-- ARGV[5]: one JSON array A (one string for ioredis to write, not four arguments a request; the
-- script reads its numbers with tonumber as it read ARGV): A[1] the process; A[2] how many
-- tenants follow, each as group, key, weight, model, capacity (named once per call: the
-- enqueues of a turn mostly share them); then per request (the enqueues of one event-loop
-- turn, put in line one after the other exactly as separate scripts would): id, tenant
-- (1-based), cost, seq. `seq` is empty for a new request; a waiter
-- that lost its entry (its process was cut from Redis past its lease) comes back with its old
-- one, and goes back to its old place in its key's line, its counters kept. Returns per request
-- {1 when granted by the end of the script, seq}; those grants are not published (the reply
-- tells).
--
-- A new request that is served at once (its key's slot was held, or nothing else waits and a
-- slot is free: the one waiter pump would pick) is granted without being stored as a waiter
-- first: the same counters, charges and slot as a stored waiter taken out by pump, with no
-- waiter entry, lease or line entry written and removed in the same call.
local A = cjson.decode(ARGV[5])
local process, TENANTS = A[1], 3
local FIRST = TENANTS + tonumber(A[2]) * 5
local function enqueue(a)
  local id, t, cost, oldSeq = A[a], TENANTS + (tonumber(A[a + 1]) - 1) * 5, tonumber(A[a + 2]), tonumber(A[a + 3])
  local g, k, w, model, capacity = A[t], A[t + 1], A[t + 2], A[t + 3], A[t + 4]
  -- Written only when changed: the same capacity and weight come with nearly every request.
  if hget(S, 'capacity') ~= capacity then hset(S, 'capacity', capacity) end
  if hget(GW, g) ~= w then hset(GW, g, w) end
  local gk = g .. SEP .. k
  local held = holdOf(gk)
  if not held and not oldSeq then lift(g, gk) end
  local seq = oldSeq or hincr(S, 'seq', 1)
  local entry = { g = g, k = k, c = cost, s = seq, p = process, m = model }
  local atOnce = not oldSeq and (held or (#hkeys(KWAIT) == 0 and hnum(S, 'running') + holds() < hnum(S, 'capacity')))
  hincr(KWAIT, gk, 1)
  hincr(GWAIT, g, 1)
  if atOnce then
    if held then dropHold(gk) end
    entry.lease = now + lease
    leaveLine(entry, true)
    grant(id, entry)
    -- A held slot served, others may wait; a free slot taken, nothing else waited.
    if held then pump() end
    return seq
  end
  redis.call('HSET', WAITERS, id, cjson.encode(entry))
  waiters[id] = entry
  redis.call('ZADD', WEXP, now + lease, id)
  local placed = false
  if oldSeq then
    for _, other in ipairs(redis.call('LRANGE', kq(gk), 0, -1)) do
      local o = waiter(other)
      if o and o.s > seq then
        redis.call('LINSERT', kq(gk), 'BEFORE', other, id)
        heads[gk] = nil
        placed = true
        break
      end
    end
  end
  if not placed then
    redis.call('RPUSH', kq(gk), id)
    if heads[gk] == false then heads[gk] = id end
  end
  if held then
    -- The slot kept for this key: served now.
    dropHold(gk)
    grant(id, takeWaiter(id, true))
  end
  pump()
  return seq
end
for i = FIRST, #A, 4 do replying[A[i]] = true end
expire()
local seqs = {}
for i = FIRST, #A, 4 do seqs[#seqs + 1] = enqueue(i) end
flush()
touch()
local out = {}
for n, seq in ipairs(seqs) do
  local id = A[FIRST + (n - 1) * 4]
  if granted[id] then out[n] = {1, seq} else out[n] = {0, seq} end
end
return out
