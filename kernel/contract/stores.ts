/**
 * Where a plugin or a domain keeps its own tables: the deployment's database, as configured at
 * start (`stores:` in server.yaml). The embedded default is SQLite files in the data folder; with
 * `stores.postgres_url` it is PostgreSQL, shared by every replica. Each owner makes its own
 * tables, in its own file or under its own names, and closes what it opened.
 */
import type Database from 'better-sqlite3'
import type pg from 'pg'

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
}
