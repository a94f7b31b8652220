/**
 * What the kernel gives every plugin: the deployment's config and the shared services.
 * Plugins depend on these interfaces only; the implementations live beside them in kernel/.
 */
import type { Principal } from './exchange.js'
import type { Logger } from './log.js'
import type { Reply } from './reply.js'
import type { ModelsFile } from '../../schemas/models.schema.js'
import type { KeysFile } from '../../schemas/keys.schema.js'
import type { Catalog } from './catalog.js'
import type { KeyAdmin, KeyStore } from './key-store.js'
import type { Backends } from './backends.js'
import type { ServerFile } from '../../schemas/server.schema.js'
import type { UsageRecords } from './records.js'
import type { QueueLoad } from './load.js'
import type { RedisService } from './redis.js'
import type { Stores } from './stores.js'
import type { Metrics } from './metrics.js'

/** Config files after validation, defaults applied. */
export interface Deployment {
  readonly configDir: string
  readonly pipelinesDir: string
  readonly dataDir: string
  readonly server: Required<ServerFile> & { limits: Required<NonNullable<ServerFile['limits']>> }
  readonly models: ModelsFile
  readonly keys: KeysFile
  /** Other config files by name (e.g. `catalog.yaml`), parsed YAML, for plugins that own them. */
  file(name: string): unknown
}

export interface CallOptions {
  principal?: Principal
  signal?: AbortSignal
  /** Request headers, by lower-case name. */
  headers?: Record<string, string>
  /** Request id of the calling request: logs, and the call's record (`parent_request_id`). */
  parentId?: string
}

export interface CallResult {
  readonly reply: Reply
  /** Response headers the route's steps added. */
  readonly headers: ReadonlyMap<string, string>
  /** What the route's model calls used (final once a streamed reply has ended). */
  readonly usage: import('./usage.js').Usage
}

/** The products' domains by name (`kernel.domains.query` …): each domain adds its entry by declaration merging (domain.ts). */
export interface Domains {}

export interface Kernel {
  readonly config: Deployment
  readonly catalog: Catalog
  readonly keys: KeyStore
  /** Changes to keys and groups (the admin API); they apply without a restart. */
  readonly keyAdmin: KeyAdmin
  readonly backends: Backends
  /** Usage records: buffered, written in batches off the request path. */
  readonly records: UsageRecords
  /** Redis when `stores.redis_url` is set (state shared by replicas: budgets, the fair queue); undefined otherwise. */
  readonly redis: RedisService | undefined
  /** The deployment's database (SQLite files in the data folder, or PostgreSQL), for plugins that keep tables. */
  readonly stores: Stores
  /** How busy each backend pool is, as the fair queue reports it. */
  readonly load: QueueLoad
  /** Prometheus metrics of the process (they survive reloads). */
  readonly metrics: Metrics
  /** The products' shared logic, opened once per process (`kernel.domains.query` …); typed by declaration merging. */
  readonly domains: Domains
  readonly log: Logger
  /** The clock (epoch ms); tests may replace it. Retirement and budgets read it. */
  now(): number
  /**
   * Runs another route in-process and returns its reply, so that whatever touches a model is
   * queued, mapped, recorded and counted like a client request. Errors are thrown as GatewayError.
   */
  call(routeId: string, body: unknown, options?: CallOptions): Promise<CallResult>
}
