/**
 * The projects table in PostgreSQL, shared by every replica. Tables are made at start under an
 * advisory lock (replicas starting together do not race); each write and its version bump are
 * one transaction.
 */
import pg from 'pg'
import { inTransaction } from '../../kernel/contract/index.js'
import {
  projectColumns,
  projectFromRow,
  projectValues,
  tokenColumns,
  tokenFromRow,
  tokenValues,
  type ProjectsTable,
} from './projects-table.js'

const schema = `
CREATE TABLE IF NOT EXISTS query_projects (
  id TEXT PRIMARY KEY, key_id TEXT NOT NULL, defaults TEXT NOT NULL, compare_models TEXT NOT NULL,
  created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS query_tokens (
  id TEXT PRIMARY KEY, project_id TEXT NOT NULL, kind TEXT NOT NULL, digest TEXT NOT NULL, created_at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS query_tokens_project ON query_tokens (project_id);
CREATE TABLE IF NOT EXISTS query_projects_meta (name TEXT PRIMARY KEY, value BIGINT NOT NULL);
INSERT INTO query_projects_meta (name, value) VALUES ('version', 0) ON CONFLICT (name) DO NOTHING;
`

export async function openPostgresProjects(options: { url: string; schema: string }): Promise<ProjectsTable> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: 2,
    options: `-c search_path=${options.schema}`,
    connectionTimeoutMillis: 5000,
  })
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => undefined)
  try {
    await inTransaction(pool, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['sluice-schema'])
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${options.schema}`)
      await c.query(schema)
    })
  } catch (err) {
    await pool.end()
    throw err
  }
  const bump = (c: pg.PoolClient) => c.query(`UPDATE query_projects_meta SET value = value + 1 WHERE name = 'version'`)
  const readVersion = async (c: pg.Pool | pg.PoolClient) =>
    Number((await c.query(`SELECT value FROM query_projects_meta WHERE name = 'version'`)).rows[0]?.value ?? 0)
  return {
    version: () => readVersion(pool),
    load: () =>
      inTransaction(pool, async (c) => {
        await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ')
        const version = await readVersion(c)
        const projects = (await c.query('SELECT * FROM query_projects ORDER BY id')).rows.map(projectFromRow)
        const tokens = (await c.query('SELECT * FROM query_tokens ORDER BY created_at, id')).rows.map(tokenFromRow)
        return { version, projects, tokens }
      }),
    async putProject(project) {
      await inTransaction(pool, async (c) => {
        await c.query(
          `INSERT INTO query_projects (${projectColumns.join(', ')}) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (id) DO UPDATE SET key_id = EXCLUDED.key_id, defaults = EXCLUDED.defaults, compare_models = EXCLUDED.compare_models, updated_at = EXCLUDED.updated_at`,
          projectValues(project),
        )
        await bump(c)
      })
    },
    deleteProject: (id) =>
      inTransaction(pool, async (c) => {
        await c.query('DELETE FROM query_tokens WHERE project_id = $1', [id])
        const deleted = ((await c.query('DELETE FROM query_projects WHERE id = $1', [id])).rowCount ?? 0) > 0
        await bump(c)
        return deleted
      }),
    async insertToken(token) {
      await inTransaction(pool, async (c) => {
        await c.query(
          `INSERT INTO query_tokens (${tokenColumns.join(', ')}) VALUES ($1, $2, $3, $4, $5)`,
          tokenValues(token),
        )
        await bump(c)
      })
    },
    deleteToken: (projectId, tokenId) =>
      inTransaction(pool, async (c) => {
        const deleted =
          ((await c.query('DELETE FROM query_tokens WHERE project_id = $1 AND id = $2', [projectId, tokenId]))
            .rowCount ?? 0) > 0
        if (deleted) await bump(c)
        return deleted
      }),
    async close() {
      await pool.end()
    },
  }
}
