-- The auth step's per-key request windows (request-windows.ts), a section of the turn's one
-- script call. ARGV: the key prefix, then per request its key id, limit and now (epoch ms).
-- A window is a hash of one-second buckets (start second → count) that expires a minute after
-- its last request. Returns per request 0 (counted) or the milliseconds until it would be.
local prefix = ARGV[1]
local out = {}
for i = 2, #ARGV, 3 do
  local key = prefix .. ARGV[i]
  local limit, now = tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
  local sec = math.floor(now / 1000)
  local fields = redis.call('HGETALL', key)
  local secs, counts, total = {}, {}, 0
  for j = 1, #fields, 2 do
    local s, c = tonumber(fields[j]), tonumber(fields[j + 1])
    if s <= sec - 60 then
      redis.call('HDEL', key, fields[j])
    else
      secs[#secs + 1] = s
      counts[s] = c
      total = total + c
    end
  end
  if total < limit then
    redis.call('HINCRBY', key, sec, 1)
    redis.call('PEXPIRE', key, 61000)
    out[#out + 1] = 0
  else
    table.sort(secs)
    local need, freed, wait = total - limit + 1, 0, 60000
    for _, s in ipairs(secs) do
      freed = freed + counts[s]
      if freed >= need then
        wait = (s + 60) * 1000 - now
        break
      end
    end
    out[#out + 1] = wait
  end
end
return out
