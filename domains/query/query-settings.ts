/** server.yaml `query:` with its defaults: what the history and upload stores and the chat upload route read. */
import type { ServerFile } from '../../schemas/server.schema.js'

export interface UploadLimits {
  /** Files in one upload at most. */
  readonly maxFiles: number
  /** Bytes of one file at most. */
  readonly maxFileBytes: number
  /** Bytes of all files of one upload at most. */
  readonly maxTotalBytes: number
  /** How long an upload is kept, in ms. */
  readonly ttlMs: number
}

export interface QuerySettings {
  readonly historyRetentionMs: number
  readonly historyMaxTurns: number
  readonly purgeEveryMs: number
  readonly uploads: UploadLimits
}

const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE

export function querySettings(q: Partial<ServerFile['query']> | undefined): QuerySettings {
  const u: Partial<NonNullable<ServerFile['query']>['uploads']> | undefined = q?.uploads
  return {
    historyRetentionMs: (q?.history_retention_days ?? 30) * DAY,
    historyMaxTurns: q?.history_max_turns ?? 200,
    purgeEveryMs: (q?.purge_every_minutes ?? 10) * MINUTE,
    uploads: {
      maxFiles: u?.max_files ?? 20,
      maxFileBytes: u?.max_file_bytes ?? 20 * 1024 * 1024,
      maxTotalBytes: u?.max_total_bytes ?? 50 * 1024 * 1024,
      ttlMs: (u?.ttl_minutes ?? 60) * MINUTE,
    },
  }
}

/** The gateway routes the Query service calls in-process (server.yaml `query.routes`). */
export interface QueryRoutes {
  readonly chat: string
  readonly embeddings: string
  readonly rerank: string
}

/** server.yaml `query.routes`; ajv has applied its defaults, these cover a config built by hand. */
export function queryRoutes(q: Partial<ServerFile['query']> | undefined): QueryRoutes {
  const r: Partial<QueryRoutes> = q?.routes ?? {}
  return { chat: r.chat ?? 'chat-internal', embeddings: r.embeddings ?? 'embeddings', rerank: r.rerank ?? 'rerank' }
}
