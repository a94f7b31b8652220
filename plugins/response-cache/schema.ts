import type { ConfigOf } from '../../kernel/contract/index.js'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ttl_s: {
      type: 'integer',
      minimum: 1,
      maximum: 2592000,
      default: 300,
      description:
        "Seconds an answer is served from the cache when the model's entry says `cache: true` (an entry's own `ttl_s` wins).",
    },
    max_entries: {
      type: 'integer',
      minimum: 1,
      default: 10000,
      description: "In memory (embedded): answers this route's cache holds at most; the least recently used go first.",
    },
    max_bytes: {
      type: 'integer',
      minimum: 1024,
      default: 67108864,
      description:
        "In memory (embedded): bytes this route's cache holds at most (64 MiB); the least recently used go first.",
    },
    max_entry_bytes: {
      type: 'integer',
      minimum: 1024,
      default: 1048576,
      description:
        'The largest answer kept (1 MiB, as JSON), in memory or in Redis; a larger one is served but not cached.',
    },
    redis_timeout_ms: {
      type: 'integer',
      minimum: 1,
      default: 250,
      description:
        'Scale-out: the longest wait for Redis on a lookup or a write. Past it the request goes on as a miss (a lookup) or uncached (a write), and a warning is logged.',
    },
  },
} as const

export type ResponseCacheConfig = ConfigOf<typeof configSchema>
