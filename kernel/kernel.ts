/**
 * What the kernel gives every plugin: the deployment's config and the shared services.
 * Plugins depend on these interfaces only; the implementations live beside them in kernel/.
 */
import type { Dispatcher } from 'undici'
import type { Principal } from './exchange.js'
import type { Logger } from './log.js'
import type { Reply } from './reply.js'
import type { BackendConfig, FamilyConfig, ModelConfig, ModelsFile } from '../schemas/models.schema.js'
import type { GroupConfig, KeyConfig, KeysFile } from '../schemas/keys.schema.js'
import type { ServerFile } from '../schemas/server.schema.js'

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
}

export interface KeyRecord {
  readonly id: string
  readonly group: string
  readonly enabled: boolean
  readonly legacy: boolean
  readonly config?: KeyConfig
}

/** API keys, looked up by secret (stored hashed, compared in constant time). */
export interface KeyStore {
  lookup(secret: string): KeyRecord | undefined
  group(id: string): GroupConfig | undefined
}

/** Keep-alive connection pools to the model servers, one per backend. */
export interface Backends {
  /** The pool for a backend, and its base URL (origin + path prefix, without a trailing slash). */
  get(name: string): { dispatcher: Dispatcher; baseUrl: string; config: BackendConfig }
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
  readonly backends: Backends
  readonly log: Logger
  /** The clock (epoch ms); tests may replace it. Retirement and budgets read it. */
  now(): number
  /**
   * Runs another route in-process and returns its reply, so that whatever touches a model is
   * queued, mapped, recorded and counted like a client request. Errors are thrown as GatewayError.
   */
  call(routeId: string, body: unknown, options?: CallOptions): Promise<CallResult>
}
