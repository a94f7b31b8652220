-- The loop of a turn's one script call (redis-turn.ts puts the sections' functions, S[name],
-- above it). ARGV: the number of sections n, then per section its name, key count and argument
-- count, then the arguments; KEYS: the sections' keys one after the other. Returns per section
-- {1, reply} or {0, error message}: a section that fails fails only its own callers.
local n = tonumber(ARGV[1])
local k, a = 0, 1 + n * 3
local out = {}
for s = 1, n do
  local name, nk, na = ARGV[s * 3 - 1], tonumber(ARGV[s * 3]), tonumber(ARGV[s * 3 + 1])
  local keys, argv = {}, {}
  for i = 1, nk do keys[i] = KEYS[k + i] end
  for i = 1, na do argv[i] = ARGV[a + i] end
  k, a = k + nk, a + na
  local ok, reply = pcall(S[name], keys, argv)
  if ok then
    out[s] = { 1, reply }
  elseif type(reply) == 'table' and reply.err then
    out[s] = { 0, reply.err }
  else
    out[s] = { 0, tostring(reply) }
  end
end
return out
