/** The projects table in SQLite: `projects.db` in the data folder (WAL), for the embedded default. */
import type Database from 'better-sqlite3'
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
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS query_tokens (
  id TEXT PRIMARY KEY, project_id TEXT NOT NULL, kind TEXT NOT NULL, digest TEXT NOT NULL, created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS query_tokens_project ON query_tokens (project_id);
CREATE TABLE IF NOT EXISTS query_projects_meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT OR IGNORE INTO query_projects_meta (name, value) VALUES ('version', 0);
`

/** `db`: projects.db of the data folder, opened through the stores seam (`stores.sqlite`). */
export function openSqliteProjects(db: Database.Database): ProjectsTable {
  db.exec(schema)
  const version = db.prepare(`SELECT value FROM query_projects_meta WHERE name = 'version'`).pluck()
  const bump = db.prepare(`UPDATE query_projects_meta SET value = value + 1 WHERE name = 'version'`)
  const allProjects = db.prepare('SELECT * FROM query_projects ORDER BY id')
  const allTokens = db.prepare('SELECT * FROM query_tokens ORDER BY created_at, id')
  const upsertProject = db.prepare(
    `INSERT INTO query_projects (${projectColumns.join(', ')}) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET key_id = excluded.key_id, defaults = excluded.defaults, compare_models = excluded.compare_models, updated_at = excluded.updated_at`,
  )
  const removeProject = db.prepare('DELETE FROM query_projects WHERE id = ?')
  const removeProjectTokens = db.prepare('DELETE FROM query_tokens WHERE project_id = ?')
  const insertToken = db.prepare(`INSERT INTO query_tokens (${tokenColumns.join(', ')}) VALUES (?, ?, ?, ?, ?)`)
  const removeToken = db.prepare('DELETE FROM query_tokens WHERE project_id = ? AND id = ?')
  return {
    async version() {
      return Number(version.get())
    },
    async load() {
      return db.transaction(() => ({
        version: Number(version.get()),
        projects: (allProjects.all() as Record<string, unknown>[]).map(projectFromRow),
        tokens: (allTokens.all() as Record<string, unknown>[]).map(tokenFromRow),
      }))()
    },
    async putProject(project) {
      db.transaction(() => {
        upsertProject.run(projectValues(project))
        bump.run()
      })()
    },
    async deleteProject(id) {
      return db.transaction(() => {
        removeProjectTokens.run(id)
        const deleted = removeProject.run(id).changes > 0
        bump.run()
        return deleted
      })()
    },
    async insertToken(token) {
      db.transaction(() => {
        insertToken.run(tokenValues(token))
        bump.run()
      })()
    },
    async deleteToken(projectId, tokenId) {
      return db.transaction(() => {
        const deleted = removeToken.run(projectId, tokenId).changes > 0
        if (deleted) bump.run()
        return deleted
      })()
    },
    async close() {
      if (db.open) db.close()
    },
  }
}
