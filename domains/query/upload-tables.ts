/**
 * The two implementations of ChatUploads. One row per file, keyed by project, session, the
 * upload's query_id and the file's name; images keep their data URL, documents and audio their
 * text. An upload is written in one transaction. Expired rows are never returned (the read
 * compares `expires_at` with the clock) and are purged periodically.
 */
import type Database from 'better-sqlite3'
import type pg from 'pg'
import { inTransaction } from '../../kernel/contract/index.js'
import type { ChatUploads, UploadedFile, UploadKind } from './uploads.js'

export interface UploadTable extends ChatUploads {
  /** Deletes the expired files; how many. */
  purge(): Promise<number>
}

interface FileRow {
  name: string
  kind: UploadKind
  content_type: string
  bytes: number | string
  data_url: string | null
  text: string | null
}

function fileOf(r: FileRow): UploadedFile {
  const f: { -readonly [K in keyof UploadedFile]: UploadedFile[K] } = {
    name: r.name,
    kind: r.kind,
    contentType: r.content_type,
    bytes: Number(r.bytes),
  }
  if (r.data_url !== null) f.dataUrl = r.data_url
  if (r.text !== null) f.text = r.text
  return f
}

/** The files found, in the order asked, and the names not found. */
function found(rows: FileRow[], names: readonly string[]): { files: UploadedFile[]; missing: string[] } {
  const byName = new Map(rows.map((r) => [r.name, r]))
  const files: UploadedFile[] = []
  const missing: string[] = []
  for (const n of new Set(names)) {
    const r = byName.get(n)
    if (r) files.push(fileOf(r))
    else missing.push(n)
  }
  return { files, missing }
}

const rowValues = (f: UploadedFile) =>
  [f.name, f.kind, f.contentType, f.bytes, f.dataUrl ?? null, f.text ?? null] as const

export const sqliteUploadSchema = `
CREATE TABLE IF NOT EXISTS query_uploads (
  project TEXT NOT NULL, session TEXT NOT NULL, query_id TEXT NOT NULL, name TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('image', 'doc', 'audio')), content_type TEXT NOT NULL, bytes INTEGER NOT NULL,
  data_url TEXT, text TEXT, expires_at INTEGER NOT NULL,
  PRIMARY KEY (project, session, query_id, name)
);
CREATE INDEX IF NOT EXISTS query_uploads_expires ON query_uploads (expires_at);
`

export function sqliteUploads(db: Database.Database, now: () => number): UploadTable {
  const insert = db.prepare(
    'INSERT INTO query_uploads (project, session, query_id, name, kind, content_type, bytes, data_url, text, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  )
  // The names travel as one JSON array parameter: one statement whatever their number.
  const select = db.prepare<[string, string, string, string, number]>(
    `SELECT name, kind, content_type, bytes, data_url, text FROM query_uploads
     WHERE project = ? AND session = ? AND query_id = ? AND name IN (SELECT value FROM json_each(?)) AND expires_at > ?`,
  )
  const purge = db.prepare<[number]>('DELETE FROM query_uploads WHERE expires_at <= ?')
  const put = db.transaction(
    (projectId: string, sessionId: string, queryId: string, files: readonly UploadedFile[], expiresAt: number) => {
      for (const f of files) insert.run(projectId, sessionId, queryId, ...rowValues(f), expiresAt)
    },
  )
  return {
    async put(projectId, sessionId, queryId, files, expiresAt) {
      put(projectId, sessionId, queryId, files, expiresAt)
    },
    async get(projectId, sessionId, queryId, names) {
      if (names.length === 0) return { files: [], missing: [] }
      const rows = select.all(projectId, sessionId, queryId, JSON.stringify(names), now()) as FileRow[]
      return found(rows, names)
    },
    async purge() {
      return purge.run(now()).changes
    },
  }
}

export const postgresUploadSchema = `
CREATE TABLE IF NOT EXISTS query_uploads (
  project TEXT NOT NULL, session TEXT NOT NULL, query_id TEXT NOT NULL, name TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('image', 'doc', 'audio')), content_type TEXT NOT NULL, bytes BIGINT NOT NULL,
  data_url TEXT, text TEXT, expires_at BIGINT NOT NULL,
  PRIMARY KEY (project, session, query_id, name)
);
CREATE INDEX IF NOT EXISTS query_uploads_expires ON query_uploads (expires_at);
`

export function postgresUploads(pool: pg.Pool, now: () => number): UploadTable {
  return {
    async put(projectId, sessionId, queryId, files, expiresAt) {
      if (files.length === 0) return
      await inTransaction(pool, async (c) => {
        for (const f of files) {
          await c.query(
            'INSERT INTO query_uploads (project, session, query_id, name, kind, content_type, bytes, data_url, text, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
            [projectId, sessionId, queryId, ...rowValues(f), expiresAt],
          )
        }
      })
    },
    async get(projectId, sessionId, queryId, names) {
      if (names.length === 0) return { files: [], missing: [] }
      const { rows } = await pool.query<FileRow>(
        `SELECT name, kind, content_type, bytes, data_url, text FROM query_uploads
         WHERE project = $1 AND session = $2 AND query_id = $3 AND name = ANY($4::text[]) AND expires_at > $5`,
        [projectId, sessionId, queryId, [...names], now()],
      )
      return found(rows, names)
    },
    async purge() {
      const r = await pool.query('DELETE FROM query_uploads WHERE expires_at <= $1', [now()])
      return r.rowCount ?? 0
    },
  }
}
