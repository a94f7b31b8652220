/**
 * What the kernel gives every plugin: the deployment's config and the shared services.
 * Plugins depend on these interfaces only; the implementations live beside them in kernel/.
 */
import type { Dispatcher } from 'undici'
import type { Exchange, Principal } from './exchange.js'
import type { UpstreamCall, UpstreamResponse } from './services/backends/call.js'
import type { Logger } from './log.js'
import type { Reply } from './reply.js'
import type { BackendConfig, FamilyConfig, ModelConfig, ModelsFile } from '../schemas/models.schema.js'
import type { GroupConfig, KeysFile } from '../schemas/keys.schema.js'
import type { ServerFile } from '../schemas/server.schema.js'
import type { UsageRecords } from './services/records/records.js'
import type { SharedState } from './services/state/state.js'
import type { Metrics } from './services/metrics/metrics.js'

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

/** The model catalog: names, families, upstream names, retirement. */
export interface Catalog {
  readonly defaultModel: string
  model(id: string): ModelConfig | undefined
  family(id: string): FamilyConfig | undefined
  /** Catalog model whose model server reports this name in `model`. */
  byReportedName(name: string): ModelConfig | undefined
  models(): readonly ModelConfig[]
  families(): readonly FamilyConfig[]
  backend(name: string): (BackendConfig & { name: string; baseUrl: string }) | undefined
  /**
   * Whether the caller's group may use a model asked for by any of these names (the name sent,
   * the catalog id, the family). No group: yes; a group the key store does not know: no.
   */
  permits(group: string | undefined, names: readonly string[]): boolean
}

/** A spending budget per term, in indicative value. */
export interface TermBudget {
  readonly amount: number
  readonly term: 'day' | 'week' | 'month'
}

export interface KeyRecord {
  readonly id: string
  readonly group: string
  readonly enabled: boolean
  readonly legacy: boolean
  readonly budget?: TermBudget
  readonly tokensPerMinute?: number
  /** Where the key is defined: `config` (keys.yaml, the static seed) or `store` (the admin API). */
  readonly source: 'config' | 'store'
  /** Epoch ms; keys of the seed have none. */
  readonly createdAt?: number
  readonly updatedAt?: number
}

export interface GroupRecord {
  readonly id: string
  readonly config: GroupConfig
  readonly source: 'config' | 'store'
}

/**
 * API keys and groups: the keys.yaml seed overlaid by what the admin API stored. Lookups are
 * in memory (the request path never waits on a store); the secret is found by its SHA-256,
 * compared in constant time.
 */
export interface KeyStore {
  lookup(secret: string): KeyRecord | undefined
  /** A live key by id. */
  key(id: string): KeyRecord | undefined
  group(id: string): GroupConfig | undefined
  keys(): readonly KeyRecord[]
  groups(): readonly GroupRecord[]
  /** True when `secret` is the admin API's key. */
  isAdmin(secret: string): boolean
  /** Whether an admin key is set at all (without one the admin API is closed). */
  readonly adminConfigured: boolean
}

export interface NewKey {
  id?: string
  group: string
  enabled?: boolean
  legacy?: boolean
  budget?: TermBudget
  tokensPerMinute?: number
}

/** A change to a key; `null` clears a budget. */
export interface KeyChange {
  group?: string
  enabled?: boolean
  budget?: TermBudget | null
  tokensPerMinute?: number | null
}

/** Changes made through the admin API; they live in the store and apply without a restart. */
export interface KeyAdmin {
  /** Makes a key; its secret is returned here once and never again. */
  createKey(input: NewKey): Promise<{ key: KeyRecord; secret: string }>
  updateKey(id: string, change: KeyChange): Promise<KeyRecord>
  /** A new secret (the old one stops working) and, for a legacy key, the move to the current gateway. */
  rotateKey(id: string): Promise<{ key: KeyRecord; secret: string }>
  deleteKey(id: string): Promise<void>
  putGroup(id: string, config: unknown): Promise<GroupRecord>
  deleteGroup(id: string): Promise<void>
}

/** The model servers: keep-alive pools, and the one call every adapter makes. */
export interface Backends {
  /** The pool for a backend, and its base URL (origin + path prefix, without a trailing slash). */
  get(name: string): { dispatcher: Dispatcher; baseUrl: string; origin: string; pathPrefix: string; config: BackendConfig }
  /**
   * Calls the model server of `call.model`: upstream headers, errors passed through with the
   * server's status and message, 502 when it cannot be reached, aborted with the request. Marks
   * `ex.usage` as having reached that model; the caller reports what it used.
   */
  call(ex: Exchange, call: UpstreamCall): Promise<UpstreamResponse>
}

export interface CallOptions {
  principal?: Principal
  signal?: AbortSignal
  /** Request headers, by lower-case name. */
  headers?: Record<string, string>
  /** Request id of the calling request, for logs. */
  parentId?: string
}

export interface CallResult {
  readonly reply: Reply
  /** Response headers the route's steps added. */
  readonly headers: ReadonlyMap<string, string>
}

export interface Kernel {
  readonly config: Deployment
  readonly catalog: Catalog
  readonly keys: KeyStore
  /** Changes to keys and groups (the admin API); they apply without a restart. */
  readonly keyAdmin: KeyAdmin
  readonly backends: Backends
  /** Usage records: buffered, written in batches off the request path. */
  readonly records: UsageRecords
  /** Budgets, token windows and the fair queues: in memory, or in Redis across replicas. */
  readonly state: SharedState
  /** Prometheus metrics of the process (they survive reloads). */
  readonly metrics: Metrics
  readonly log: Logger
  /** The clock (epoch ms); tests may replace it. Retirement and budgets read it. */
  now(): number
  /**
   * Runs another route in-process and returns its reply, so that whatever touches a model is
   * queued, mapped, recorded and counted like a client request. Errors are thrown as GatewayError.
   */
  call(routeId: string, body: unknown, options?: CallOptions): Promise<CallResult>
}
