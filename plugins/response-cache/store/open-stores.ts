/**
 * The response-cache plugin's state for the life of the process: one store per route that uses
 * the plugin, kept across reloads (a reload that changes a route's bounds resizes its store).
 * In process memory, or in Redis when the kernel has it (every replica then shares the cache).
 */
import type { Kernel } from '../../../kernel/contract/index.js'
import type { CacheStore } from './cache-store.js'
import { MemoryStore, type MemoryBounds } from './memory-store.js'
import { RedisStore } from './redis-store.js'

export interface StoreSettings extends MemoryBounds {
  /** The longest wait for one Redis command. */
  readonly redisTimeoutMs: number
}

export interface CacheStores {
  /** `memory` or `redis`: where the answers are. */
  readonly kind: 'memory' | 'redis'
  /** The store of one route (`<pipeline>/<route>`), made on first use. */
  of(route: string, settings: StoreSettings): CacheStore
  /** Entries and bytes held in memory, by route (empty with Redis). */
  sizes(): Iterable<readonly [string, { entries: number; bytes: number }]>
  close(): void
}

export function openStores(kernel: Kernel): CacheStores {
  const redis = kernel.redis
  const memory = new Map<string, MemoryStore>()
  return {
    kind: redis ? 'redis' : 'memory',
    of(route, settings) {
      if (redis) return new RedisStore(redis.client, `${redis.prefix}response-cache:${route}:`, settings.redisTimeoutMs)
      const bounds = { maxEntries: settings.maxEntries, maxBytes: settings.maxBytes }
      let store = memory.get(route)
      if (store) store.resize(bounds)
      else memory.set(route, (store = new MemoryStore(bounds)))
      return store
    },
    *sizes() {
      for (const [route, store] of memory) yield [route, store.size] as const
    },
    close() {
      for (const store of memory.values()) store.clear()
      memory.clear()
    },
  }
}
