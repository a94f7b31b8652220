/**
 * The two implementations of ConversationHistory. Turns are rows of `query_history`, ordered
 * by an increasing sequence number (not by `at`: two turns of one answer share a millisecond).
 * An append is one transaction that also trims the session to its cap, so a reader never sees
 * half of a query's turns nor more than the cap. Turns past the retention are never returned
 * and are purged periodically.
 */
import type Database from 'better-sqlite3'
import type pg from 'pg'
import { inTransaction } from '../../kernel/contract/index.js'
import type { ConversationHistory, HistoryTurn } from './history.js'

export interface HistoryLimits {
  /** Turns older than this (ms) are not returned, and purged. */
  readonly retentionMs: number
  /** Turns kept per session. */
  readonly maxTurns: number
  readonly now: () => number
}

export interface HistoryTable extends ConversationHistory {
  /** Deletes the turns past the retention; how many. */
  purge(): Promise<number>
}

interface TurnRow {
  role: 'user' | 'assistant'
  content: string
  at: number | string
  query_id: string
}

const turnOf = (r: TurnRow): HistoryTurn => ({
  role: r.role,
  content: r.content,
  at: Number(r.at),
  queryId: r.query_id,
})

function checkLimit(limit: number): number {
  return Number.isInteger(limit) && limit > 0 ? limit : 0
}

export const sqliteHistorySchema = `
CREATE TABLE IF NOT EXISTS query_history (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, project TEXT NOT NULL, session TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('user', 'assistant')), content TEXT NOT NULL, at INTEGER NOT NULL, query_id TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS query_history_session ON query_history (project, session, seq);
CREATE INDEX IF NOT EXISTS query_history_at ON query_history (at);
`

export function sqliteHistory(db: Database.Database, limits: HistoryLimits): HistoryTable {
  const select = db.prepare<[string, string, number, number]>(
    'SELECT role, content, at, query_id FROM query_history WHERE project = ? AND session = ? AND at >= ? ORDER BY seq DESC LIMIT ?',
  )
  const insert = db.prepare<[string, string, string, string, number, string]>(
    'INSERT INTO query_history (project, session, role, content, at, query_id) VALUES (?, ?, ?, ?, ?, ?)',
  )
  // Everything at or below the seq of the first turn past the cap (newest first) goes.
  const trim = db.prepare<[string, string, string, string, number]>(
    `DELETE FROM query_history WHERE project = ? AND session = ? AND seq <= (
       SELECT seq FROM query_history WHERE project = ? AND session = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
  )
  const purge = db.prepare<[number]>('DELETE FROM query_history WHERE at < ?')
  const append = db.transaction((projectId: string, sessionId: string, turns: readonly HistoryTurn[]) => {
    for (const t of turns) insert.run(projectId, sessionId, t.role, t.content, t.at, t.queryId)
    trim.run(projectId, sessionId, projectId, sessionId, limits.maxTurns)
  })
  return {
    async recent(projectId, sessionId, limit) {
      const n = checkLimit(limit)
      if (n === 0) return []
      const rows = select.all(projectId, sessionId, limits.now() - limits.retentionMs, n) as TurnRow[]
      return rows.reverse().map(turnOf)
    },
    async append(projectId, sessionId, turns) {
      if (turns.length > 0) append(projectId, sessionId, turns)
    },
    async purge() {
      return purge.run(limits.now() - limits.retentionMs).changes
    },
  }
}

export const postgresHistorySchema = `
CREATE TABLE IF NOT EXISTS query_history (
  seq BIGSERIAL PRIMARY KEY, project TEXT NOT NULL, session TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('user', 'assistant')), content TEXT NOT NULL, at BIGINT NOT NULL, query_id TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS query_history_session ON query_history (project, session, seq);
CREATE INDEX IF NOT EXISTS query_history_at ON query_history (at);
`

export function postgresHistory(pool: pg.Pool, limits: HistoryLimits): HistoryTable {
  return {
    async recent(projectId, sessionId, limit) {
      const n = checkLimit(limit)
      if (n === 0) return []
      const { rows } = await pool.query<TurnRow>(
        'SELECT role, content, at, query_id FROM query_history WHERE project = $1 AND session = $2 AND at >= $3 ORDER BY seq DESC LIMIT $4',
        [projectId, sessionId, limits.now() - limits.retentionMs, n],
      )
      return rows.reverse().map(turnOf)
    },
    async append(projectId, sessionId, turns) {
      if (turns.length === 0) return
      await inTransaction(pool, async (c) => {
        // One writer per session at a time, so concurrent appends trim in order and keep the cap.
        await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`query_history:${projectId}:${sessionId}`])
        for (const t of turns) {
          await c.query(
            'INSERT INTO query_history (project, session, role, content, at, query_id) VALUES ($1, $2, $3, $4, $5, $6)',
            [projectId, sessionId, t.role, t.content, t.at, t.queryId],
          )
        }
        await c.query(
          `DELETE FROM query_history WHERE project = $1 AND session = $2 AND seq <= (
             SELECT seq FROM query_history WHERE project = $1 AND session = $2 ORDER BY seq DESC LIMIT 1 OFFSET $3)`,
          [projectId, sessionId, limits.maxTurns],
        )
      })
    },
    async purge() {
      const r = await pool.query('DELETE FROM query_history WHERE at < $1', [limits.now() - limits.retentionMs])
      return r.rowCount ?? 0
    },
  }
}
