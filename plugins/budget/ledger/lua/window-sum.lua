-- After prune.lua (redis-ledger.ts puts it before this).
-- KEYS: 3 keys of a window. ARGV: cutoff ('clock' for leases). Returns the sum of what is left.
local cutoff = ARGV[1] == 'clock' and clock or tonumber(ARGV[1])
return fmt(prune(KEYS[1], KEYS[2], KEYS[3], cutoff))
