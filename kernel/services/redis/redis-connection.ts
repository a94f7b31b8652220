/**
 * The process's Redis (`stores.redis_url`), opened at start when configured: the command
 * connection and the per-turn script batch that plugins' engines share (kernel.redis), and
 * further connections on request (the fair queue's subscriber). A module of its own so that
 * ioredis is loaded only when a Redis URL is configured (it weighs ~25 MB of memory).
 */
import { Redis } from 'ioredis'
import type { RedisService } from '../../contract/redis.js'
import { describeCause, type Logger } from '../../contract/log.js'
import { withTimeout } from '../../contract/with-timeout.js'
import { RedisTurn } from './redis-turn.js'
import { redactUrl } from '../../contract/log.js'

export interface RedisConnection extends RedisService {
  /** Quits the command connection (after the plugins' states, which flush through it, have closed). */
  close(): Promise<void>
}

export interface RedisOptions {
  url: string
  prefix: string
  leaseMs: number
  log: Logger
}

/** Connects to Redis, failing the start when it cannot: a configured Redis is required. */
export async function openRedis(options: RedisOptions): Promise<RedisConnection> {
  const connect = async (name: string): Promise<Redis> => {
    const client = new Redis(options.url, {
      lazyConnect: true,
      connectionName: `sluice-${name}`,
      maxRetriesPerRequest: 2,
      commandTimeout: 5000,
      connectTimeout: 5000,
      // Keep trying to reconnect; requests meanwhile fail fast with a clear error.
      retryStrategy: (times) => Math.min(times * 200, 2000),
    })
    client.on('error', (err) =>
      options.log.warn('redis connection error', { connection: name, cause: describeCause(err) }),
    )
    try {
      await client.connect()
    } catch (err) {
      client.disconnect()
      throw new Error(`cannot reach Redis at ${redactUrl(options.url)}: ${describeCause(err)}`)
    }
    return client
  }
  const client = await connect('state')
  // One script call a turn for every plugin's batched work; plugins add their sections as they open.
  const turn = new RedisTurn(client)
  return {
    client,
    prefix: options.prefix,
    leaseMs: options.leaseMs,
    turn,
    connect,
    async ping() {
      // A bounded wait: commands queue while ioredis reconnects, and a probe must answer.
      await withTimeout(client.ping(), 2000, 'Redis did not answer within 2 s')
    },
    async close() {
      await turn.flush()
      await client.quit().catch(() => undefined)
    },
  }
}
