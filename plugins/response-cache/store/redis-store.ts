/**
 * The cache of one route in Redis, shared by every replica: one string key per answer,
 * `<prefix>response-cache:<route>:<hash>`, written with its time to live (PX), so Redis drops
 * it when it expires; its size is bounded per entry by the plugin (`max_entry_bytes`) and in
 * all by the TTL and the Redis server's own `maxmemory` policy. Each command waits at most
 * `timeoutMs`: the cache is a shortcut, and a slow or absent Redis must not hold a request.
 */
import type { Redis } from 'ioredis'
import { withTimeout } from '../../../kernel/contract/index.js'
import type { CacheStore } from './cache-store.js'

export class RedisStore implements CacheStore {
  constructor(
    private readonly client: Redis,
    /** `<deployment prefix>response-cache:<route>:` */
    private readonly prefix: string,
    private readonly timeoutMs: number,
  ) {}

  async get(key: string): Promise<string | undefined> {
    const text = await withTimeout(
      this.client.get(this.prefix + key),
      this.timeoutMs,
      'response cache: Redis GET timed out',
    )
    return text ?? undefined
  }

  async set(key: string, text: string, now: number, expiresAt: number): Promise<void> {
    const ttlMs = Math.max(1, Math.ceil(expiresAt - now))
    await withTimeout(
      this.client.set(this.prefix + key, text, 'PX', ttlMs),
      this.timeoutMs,
      'response cache: Redis SET timed out',
    )
  }
}
