/**
 * The shared state on Redis, for several Sluice processes. A module of its own so that
 * ioredis is loaded only when a Redis URL is configured (it weighs ~25 MB of memory).
 */
import { Redis } from 'ioredis'
import type { SharedState } from './state.js'
import type { Logger } from '../../contract/log.js'
import { LEDGER_SECTIONS, RedisLedger } from '../../../plugins/budget/ledger/redis-ledger.js'
import { RedisQueues } from '../../../plugins/fair-queue/queues/redis-queues.js'
import { QUEUE_SECTIONS } from '../../../plugins/fair-queue/queues/redis-queue-scripts.js'
import { RedisTurn } from '../redis/redis-turn.js'
import { describeCause } from '../../contract/log.js'
import { redactUrl } from './open-state.js'
import { withTimeout } from '../with-timeout.js'

/** Connects to Redis (failing the start when it cannot: a configured Redis is required). */
export async function redisState(options: { url: string; prefix: string; leaseMs: number; log: Logger }): Promise<SharedState> {
  const connect = (name: string) =>
    new Redis(options.url, {
      lazyConnect: true,
      connectionName: `sluice-${name}`,
      maxRetriesPerRequest: 2,
      commandTimeout: 5000,
      connectTimeout: 5000,
      // Keep trying to reconnect; requests meanwhile fail fast with a clear error.
      retryStrategy: (times) => Math.min(times * 200, 2000),
    })
  const redis = connect('state')
  const subscriber = connect('queue-events')
  for (const client of [redis, subscriber]) client.on('error', (err) => options.log.warn('redis connection error', { cause: describeCause(err) }))
  try {
    await redis.connect()
    await subscriber.connect()
  } catch (err) {
    redis.disconnect()
    subscriber.disconnect()
    throw new Error(`cannot reach Redis at ${redactUrl(options.url)}: ${describeCause(err)}`)
  }
  // One script call a turn for both: a turn's settlements, reservations, releases and enqueues.
  const turn = new RedisTurn(redis, { ...LEDGER_SECTIONS, ...QUEUE_SECTIONS })
  const ledger = new RedisLedger(redis, options.prefix, { leaseMs: options.leaseMs, log: options.log, turn })
  const queues = await RedisQueues.open(redis, subscriber, { prefix: options.prefix, leaseMs: options.leaseMs, log: options.log, turn })
  return {
    kind: 'redis',
    ledger,
    queues,
    async ping() {
      // A bounded wait: commands queue while ioredis reconnects, and a probe must answer.
      await withTimeout(redis.ping(), 2000, 'Redis did not answer within 2 s')
    },
    async close() {
      ledger.close()
      await queues.close()
      await redis.quit().catch(() => undefined)
      await subscriber.quit().catch(() => undefined)
    },
  }
}
