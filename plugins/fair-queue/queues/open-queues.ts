/**
 * The fair-queue plugin's state for the life of the process: the queues (in process memory, or
 * in Redis shared by every replica when the kernel has Redis), reported to kernel.load so that
 * readers of load need not know the plugin, and the service estimates each route learns per
 * pool, which a reload keeps.
 */
import type { Redis } from 'ioredis'
import type { Kernel } from '../../../kernel/contract/index.js'
import type { FairQueues } from './fair-queues.js'
import { MemoryQueues } from './memory-queues.js'
import { ServiceEstimate } from '../service-estimate.js'

export interface QueueState {
  readonly queues: FairQueues
  /** The service estimate of a route's requests on a pool (made on first use, kept across reloads). */
  estimate(route: string, pool: string): ServiceEstimate
  close(): Promise<void>
}

export async function openQueues(kernel: Kernel): Promise<QueueState> {
  let queues: FairQueues & { close(): void | Promise<void> }
  let subscriber: Redis | undefined
  const redis = kernel.redis
  if (redis) {
    // Loaded only with Redis: the embedded default needs none of the scripts.
    const { RedisQueues } = await import('./redis-queues.js')
    // Grants come by pub/sub, on a connection of the queue's own (a subscriber sends no commands).
    subscriber = await redis.connect('queue-events')
    try {
      queues = await RedisQueues.open(redis.client, subscriber, {
        prefix: redis.prefix,
        leaseMs: redis.leaseMs,
        log: kernel.log,
        turn: redis.turn,
      })
    } catch (err) {
      subscriber.disconnect()
      throw err
    }
  } else {
    queues = new MemoryQueues()
  }
  const withdraw = kernel.load.report(() => queues.load())
  const estimates = new Map<string, ServiceEstimate>()
  return {
    queues,
    estimate(route, pool) {
      const key = `${route}\u0000${pool}`
      let estimate = estimates.get(key)
      if (!estimate) estimates.set(key, (estimate = new ServiceEstimate()))
      return estimate
    },
    async close() {
      withdraw()
      await queues.close()
      await subscriber?.quit().catch(() => undefined)
    },
  }
}
