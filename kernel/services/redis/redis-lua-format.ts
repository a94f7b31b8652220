/**
 * Lua shared by the ledger's and the fair queue's scripts: how a number is written back to Redis.
 * Whole numbers (counts, token counters) as integers: '%d' writes the digits '%.17g' would, at
 * half its cost; the rest with the 17 digits that keep a double exact.
 */
export const LUA_FMT = `
local function fmt(x)
  if x == math.floor(x) and x > -1e15 and x < 1e15 then return string.format('%d', x) end
  return string.format('%.17g', x)
end
`
