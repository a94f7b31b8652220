-- After prune.lua in the batched scripts (reserve.lua, settle.lua).
-- A batch's arguments travel as one JSON array in ARGV[1], decoded into A: one string for
-- ioredis to write instead of some fifty arguments a request (each its own RESP string, which
-- cost the gateway more than anything else the scale-out mode adds). Numbers keep their meaning:
-- the scripts read them with tonumber as they read ARGV, and non-finite ones come as strings.
--
-- A batch names each line's keys once (the requests of one turn mostly share their tenant's
-- counters): A[2] is how many line references follow, one per line of each request in order,
-- each where that line's keys start in KEYS (0-based: the line's keys are KEYS[L[i] + 1], ...).
-- A term line's keys: counter, its reservations' log, amounts and sum, its minutes; a sliding
-- line's: log, amounts, sum. BATCH_ARGS is the first argument after the references.
local A = cjson.decode(ARGV[1])
local L = {}
for i = 1, tonumber(A[2]) do L[i] = tonumber(A[2 + i]) end
local BATCH_ARGS = 3 + tonumber(A[2])
