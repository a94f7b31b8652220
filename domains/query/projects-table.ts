/**
 * The projects and tokens made through the admin API, as the store keeps them (projects-sqlite.ts,
 * projects-postgres.ts). A token is kept only as the SHA-256 of its secret. Every change bumps a
 * version number, so that each replica's in-memory view (projects-cache.ts) notices it with one
 * tiny query.
 */
import type { QueryDefaults } from '../../schemas/query-request.schema.js'
import type { TokenKind } from './projects.js'

export interface StoredProject {
  readonly id: string
  readonly keyId: string
  readonly defaults: QueryDefaults
  readonly compareModels: readonly string[]
  /** Epoch ms. */
  readonly createdAt: number
  readonly updatedAt: number
}

export interface StoredToken {
  readonly id: string
  readonly projectId: string
  readonly kind: TokenKind
  /** SHA-256 of the secret, hex. */
  readonly digest: string
  /** Epoch ms. */
  readonly createdAt: number
}

export interface ProjectsSnapshot {
  readonly version: number
  readonly projects: readonly StoredProject[]
  readonly tokens: readonly StoredToken[]
}

export interface ProjectsTable {
  /** The change counter: one row, read by every replica's poll. */
  version(): Promise<number>
  /** Everything, consistent with the version it reports. */
  load(): Promise<ProjectsSnapshot>
  /** Creates or replaces a project (its `created_at` is kept on replace). */
  putProject(project: StoredProject): Promise<void>
  /** Deletes a project and its tokens in one transaction; false when there was no such project. */
  deleteProject(id: string): Promise<boolean>
  insertToken(token: StoredToken): Promise<void>
  /** False when the project has no such token. */
  deleteToken(projectId: string, tokenId: string): Promise<boolean>
  close(): Promise<void>
}

/** Columns of `query_projects`, in the order of projectValues. */
export const projectColumns = ['id', 'key_id', 'defaults', 'compare_models', 'created_at', 'updated_at'] as const
/** Columns of `query_tokens`, in the order of tokenValues. */
export const tokenColumns = ['id', 'project_id', 'kind', 'digest', 'created_at'] as const

/** JSON is kept as text in both stores. */
export function projectValues(p: StoredProject): (string | number)[] {
  return [p.id, p.keyId, JSON.stringify(p.defaults), JSON.stringify(p.compareModels), p.createdAt, p.updatedAt]
}

export function tokenValues(t: StoredToken): (string | number)[] {
  return [t.id, t.projectId, t.kind, t.digest, t.createdAt]
}

/** A text column holding JSON (a JSON column of a driver that parsed it already is taken as is). */
const json = (v: unknown): unknown => (typeof v === 'string' ? JSON.parse(v) : v)

/** PostgreSQL returns BIGINT as a string. */
export function projectFromRow(r: Record<string, unknown>): StoredProject {
  return {
    id: String(r.id),
    keyId: String(r.key_id),
    defaults: json(r.defaults) as QueryDefaults,
    compareModels: json(r.compare_models) as string[],
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  }
}

export function tokenFromRow(r: Record<string, unknown>): StoredToken {
  return {
    id: String(r.id),
    projectId: String(r.project_id),
    kind: r.kind as TokenKind,
    digest: String(r.digest),
    createdAt: Number(r.created_at),
  }
}
