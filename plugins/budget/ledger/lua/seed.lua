-- KEYS: counter, minutes, terms. ARGV: value, ttl ms, until, member ('' = not reconciled), expiresAt. Returns 1 when it seeded.
if not redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 0 end
redis.call('HSET', KEYS[2], 'until', ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
if ARGV[4] ~= '' then redis.call('ZADD', KEYS[3], ARGV[5], ARGV[4]) end
return 1
