/**
 * The services the kernel runs on, made once per process by the composition root (bin/) so that
 * they outlive every reload: what a generation hands to plugins as `kernel.*`.
 */
import type { Domains } from '../contract/kernel.js'
import type { Stores } from '../contract/stores.js'
import type { Store } from './stores/store.js'
import type { StoredKeys } from './keys/stored-keys.js'
import type { RecordWriter } from './records/records.js'
import type { RedisConnection } from './redis/redis-connection.js'
import type { QueueLoadRegistry } from './load/queue-load.js'
import type { MetricsRegistry } from './metrics/metrics.js'
import type { Exchange } from '../contract/exchange.js'
import type { Outcome } from '../contract/plugin.js'

export interface KernelServices {
  readonly store: Store
  readonly storedKeys: StoredKeys
  readonly records: RecordWriter
  /** Redis when configured (kernel.redis): the connection and the per-turn script batch. */
  readonly redis: RedisConnection | undefined
  /** The database seam (kernel.stores) for plugins and domains that keep tables of their own. */
  readonly stores: Stores
  /** Queue load as the fair queue reports it (kernel.load). */
  readonly load: QueueLoadRegistry
  readonly metrics: MetricsRegistry
  /** The products' domains (`kernel.domains`), opened by the composition root after the services. */
  readonly domains: Domains
  /** Request series and the access log, told of every request's end. */
  readonly observer: ObservesRequests
  close(): Promise<void>
}

/**
 * What a generation tells the request observer (observe/request-observer.ts). An interface of
 * its own, so that the declarations reachable from `sluice/testing` never load the observer's:
 * a package's declarations that augment ExchangeState by a relative path stop a third party's
 * `declare module 'sluice/contract'` from merging (test/docs/guide-examples.test.ts shows it).
 */
export interface ObservesRequests {
  start(ex: Exchange): void
  end(ex: Exchange, outcome: Outcome): void
  close(): Promise<void>
}
