/**
 * Projects of the Query service and their access tokens (spec 001, "Authentication"). A
 * project owns collections, defaults for the query's parameters, and tokens of two kinds; its
 * model calls are carried by one gateway key, so they are budgeted, queued and recorded like
 * any client's. Tokens are kept only as SHA-256 digests, like keys; lookups are in memory.
 */
import type { QueryDefaults } from '../../schemas/query-request.schema.js'

/** `developer`: search needs `collection`; `service`: own parameters need `request_source: "override_params"`. */
export type TokenKind = 'developer' | 'service'

export interface Project {
  readonly id: string
  /** The gateway key whose budget, token window and usage records carry the project's model calls. */
  readonly keyId: string
  /** Values a request falls back on; a value sent in the request overrides its default. */
  readonly defaults: QueryDefaults
  /** Catalog models that answer beside the requested one on `query_compare` (WebSocket). */
  readonly compareModels: readonly string[]
  /** `config` (config/projects.yaml, the static seed) or `store` (the admin API). */
  readonly source: 'config' | 'store'
  readonly createdAt?: number
  readonly updatedAt?: number
}

export interface ProjectToken {
  readonly id: string
  readonly projectId: string
  readonly kind: TokenKind
  readonly createdAt?: number
  readonly source: 'config' | 'store'
}

/** What the request path reads: in memory, never waiting on a store. */
export interface Projects {
  /** The token presented and its project; undefined for an unknown secret (compared by digest in constant time). */
  authenticate(secret: string): { token: ProjectToken; project: Project } | undefined
  project(id: string): Project | undefined
  projects(): readonly Project[]
  tokens(projectId: string): readonly ProjectToken[]
}

/** The admin API's changes; they apply without a restart (and on other replicas within the refresh period). */
export interface ProjectAdmin {
  /**
   * Creates or replaces a project from the admin API's body (validated: 400 naming the field;
   * `key` must be a key of the gateway: `keyExists` is the current generation's lookup, since
   * keys are per generation; a project of config/projects.yaml is read-only: 409).
   */
  putProject(id: string, input: unknown, keyExists: (keyId: string) => boolean): Promise<Project>
  /** Deletes the project and its tokens (404 when unknown; a config project cannot be deleted: 409). */
  deleteProject(id: string): Promise<void>
  /** A new token; its secret is returned here once and never again. */
  createToken(projectId: string, kind: TokenKind): Promise<{ token: ProjectToken; secret: string }>
  /** 404 when the project has no such token; a token of config/projects.yaml cannot be deleted: 409. */
  deleteToken(projectId: string, tokenId: string): Promise<void>
}
