/**
 * Where a plugin or a domain keeps its own tables: the deployment's database, as configured at
 * start (`stores:` in server.yaml). The embedded default is SQLite files in the data folder; with
 * `stores.postgres_url` it is PostgreSQL, shared by every replica. Each owner makes its own
 * tables, in its own file or under its own names, and closes what it opened.
 */
import type Database from 'better-sqlite3'
import type pg from 'pg'
import type { Logger } from './log.js'

export interface PostgresAccess {
  readonly pool: pg.Pool
  /** The schema every connection of the pool works in (`stores.postgres_schema`). */
  readonly schema: string
}

export interface Stores {
  /** `postgres` when `stores.postgres_url` is set: tables then belong in PostgreSQL, not in the data folder. */
  readonly kind: 'sqlite' | 'postgres'
  /** Opens (making it when missing) a SQLite file of the data folder: WAL, NORMAL sync, a 5 s busy timeout. The caller closes it. */
  sqlite(file: string): Database.Database
  /**
   * A small pool on the configured PostgreSQL (kind `postgres` only; rejects otherwise), working
   * in its schema, made when missing, with `ddl` run first under the schema lock so that replicas
   * starting together do not race. The caller ends the pool.
   */
  postgres(options: { ddl: string; max?: number }): Promise<PostgresAccess>
  /**
   * A table's snapshot kept in memory, so that the request path never waits on a store: `apply`
   * installs each loaded snapshot; it reloads at once on `reload()` (after a write of ours) and
   * when the table's version moves (another replica wrote), polled every `refreshMs`.
   */
  snapshot<S extends { readonly version: number }>(
    table: VersionedTable<S>,
    apply: (snapshot: S) => void,
    options: { readonly refreshMs: number; readonly log: Logger; readonly what: string },
  ): TableSnapshot
}

/** A table whose every write moves its version number. */
export interface VersionedTable<S extends { readonly version: number }> {
  version(): Promise<number>
  load(): Promise<S>
}

export interface TableSnapshot {
  /** Reloads now (after a write of ours, so that the next request sees it). */
  reload(): Promise<void>
  close(): void
}
