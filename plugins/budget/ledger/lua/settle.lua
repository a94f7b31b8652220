-- After prune.lua and batch-keys.lua (redis-ledger.ts puts them before this).
-- The settlements of one event-loop turn, applied one after the other. A[1]: how many; then
-- per settlement: now, ticket, n, minute, then per line: kind, reserved, actual, ms. Each line's
-- keys as BATCH_KEYS names them (a term's minutes: hash of start minute → settled, 'until' →
-- reconciled up to).
-- Per counter, read once per call: whether it exists and its time to live. A script does not
-- see time pass, and INCRBYFLOAT keeps both.
local exists, ttls = {}, {}
-- A term line's part is gathered over the call and written once per key at the end: nothing in
-- this script reads a term counter, its minutes or its open reservations, so the end state is
-- the one settlements applied one by one would leave (up to the last bits of a float sum).
-- taking[log]: the tickets to take out of a term's open reservations (each once);
-- counting[counter]: what the settlements add to it; minutes[key][minute]: the same by start minute.
local taking, takingOrder, counting, countingOrder, minutes = {}, {}, {}, {}, {}
local function gather(log, amt, sum, ticket)
  local t = taking[log]
  if not t then
    t = { amt = amt, sum = sum, ids = {}, seen = {} }
    taking[log] = t
    takingOrder[#takingOrder + 1] = log
  end
  if not t.seen[ticket] then t.seen[ticket] = true t.ids[#t.ids + 1] = ticket end
end
local function count(counter, minuteKey, minute, actual)
  if not counting[counter] then counting[counter] = 0 countingOrder[#countingOrder + 1] = { counter, minuteKey } end
  counting[counter] = counting[counter] + actual
  local m = minutes[minuteKey]
  if not m then m = {} minutes[minuteKey] = m end
  m[minute] = (m[minute] or 0) + actual
end
-- A sliding line's part, gathered per window over the call and applied at the end with a few
-- commands a window (settleWindow) instead of a prune, HGET, HSET and INCRBYFLOAT a request.
local windows, windowOrder = {}, {}
local function window(log, amt, sum, ms)
  local w = windows[log]
  if not w then
    w = { log = log, amt = amt, sum = sum, ms = ms, s = {} }
    windows[log] = w
    windowOrder[#windowOrder + 1] = log
  end
  return w
end
-- One after the other, a settlement pruned its window to now - ms, then replaced its
-- reservation's amount by the actual one, or, when that was gone (pruned: older than the
-- window), added the actual amount at now. Entries are pruned by whoever reads a window's sum,
-- so a prune that cannot touch the settlement's own entry changes nothing anyone sees; it is
-- left to the next reader. The entries' amounts and scores are read in one HMGET and one
-- ZMSCORE; an entry that the settlements' prunes would have removed (its score at or before
-- the latest cutoff so far: a request that outlived the window) gets the prune as before, the
-- changes gathered so far written first so that the prune reads what Redis would hold.
local function settleWindow(w)
  local ids = {}
  for i, st in ipairs(w.s) do ids[i] = st.ticket end
  local olds, scores = {}, {}
  for from = 1, #ids, 500 do
    local part = { unpack(ids, from, math.min(from + 499, #ids)) }
    local o, z = redis.call('HMGET', w.amt, unpack(part)), redis.call('ZMSCORE', w.log, unpack(part))
    for j = 1, #part do olds[from + j - 1] = o[j] scores[from + j - 1] = z[j] end
  end
  -- settled[ticket]: the amount a settlement of this call gave a ticket (a ticket with two lines on one window).
  local sets, adds, delta, cutoff, settled = {}, {}, 0, nil, {}
  local function writeGathered()
    for from = 1, #sets, 1000 do redis.call('HSET', w.amt, unpack(sets, from, math.min(from + 999, #sets))) end
    if delta ~= 0 then addToSum(w.sum, delta) end
    for _, e in ipairs(adds) do add(w.log, w.amt, w.sum, e[1], e[2], e[3], w.ms * 2) end
    sets, adds, delta = {}, {}, 0
  end
  for i, st in ipairs(w.s) do
    local c = st.now - w.ms
    if not cutoff or c > cutoff then cutoff = c end
    local old = settled[st.ticket] or olds[i]
    if old and scores[i] and tonumber(scores[i]) <= cutoff then
      writeGathered()
      prune(w.log, w.amt, w.sum, cutoff)
      old = redis.call('HGET', w.amt, st.ticket)
      settled[st.ticket] = nil
    end
    if old then
      sets[#sets + 1] = st.ticket
      sets[#sets + 1] = fmt(st.actual)
      delta = delta + st.actual - tonumber(old)
      settled[st.ticket] = st.actual
    elseif st.actual > 0 then
      adds[#adds + 1] = { st.ticket .. ':settled', st.now, st.actual }
    end
  end
  writeGathered()
end
local a, l = BATCH_ARGS, 0
for _ = 1, tonumber(A[1]) do
  local now, ticket, n, minute = tonumber(A[a]), A[a + 1], tonumber(A[a + 2]), A[a + 3]
  a = a + 4
  for i = 1, n do
    local actual = tonumber(A[a + 2])
    l = l + 1
    local k = L[l]
    if A[a] == 't' then
      gather(KEYS[k + 2], KEYS[k + 3], KEYS[k + 4], ticket)
      -- Counted even when the lease ran out meanwhile: it was used.
      local counter = KEYS[k + 1]
      if exists[counter] == nil then exists[counter] = redis.call('EXISTS', counter) == 1 end
      if exists[counter] then count(counter, KEYS[k + 5], minute, actual) end
    else
      local ms = tonumber(A[a + 3])
      local w = window(KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], ms)
      w.s[#w.s + 1] = { ticket = ticket, actual = actual, now = now }
    end
    a = a + 4
  end
end
for _, log in ipairs(windowOrder) do settleWindow(windows[log]) end
-- The open reservations taken, 500 tickets a command (unpack's bound).
for _, log in ipairs(takingOrder) do
  local t = taking[log]
  local taken = 0
  for from = 1, #t.ids, 500 do
    local ids = { unpack(t.ids, from, math.min(from + 499, #t.ids)) }
    local found, olds = {}, redis.call('HMGET', t.amt, unpack(ids))
    for j, old in ipairs(olds) do
      if old then found[#found + 1] = ids[j] taken = taken + tonumber(old) end
    end
    if #found > 0 then
      redis.call('ZREM', log, unpack(found))
      redis.call('HDEL', t.amt, unpack(found))
      t.any = true
    end
  end
  if t.any then
    emptied(log, t.amt, t.sum)
    if redis.call('HLEN', t.amt) == 0 then redis.call('DEL', t.sum) else addToSum(t.sum, -taken) end
  end
end
for _, c in ipairs(countingOrder) do
  local counter, minuteKey = c[1], c[2]
  redis.call('INCRBYFLOAT', counter, fmt(counting[counter]))
  local m = minutes[minuteKey]
  if m then
    for minute, amount in pairs(m) do redis.call('HINCRBYFLOAT', minuteKey, minute, fmt(amount)) end
    minutes[minuteKey] = nil
    if not ttls[counter] then ttls[counter] = redis.call('PTTL', counter) end
    if ttls[counter] > 0 then expireOnce(minuteKey, ttls[counter]) end
  end
end
return 1
