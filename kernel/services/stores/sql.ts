/**
 * The SQL both stores share: one table layout, one column order, and the mapping between rows
 * and the store's types. Dialect differences (placeholders, types, upserts) stay in each store.
 */
import type { GroupConfig } from '../../../schemas/keys.schema.js'
import type { StoredGroup, StoredKey } from './store.js'
import type { UsageDimension, UsagePeriod, UsageRecord, UsageRow } from '../../contract/records.js'

/** Columns of usage_records, in insert order. */
export const recordColumns = [
  'at',
  'request_id',
  'key_id',
  'grp',
  'route',
  'model_requested',
  'model',
  'upstream_model',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'audio_seconds',
  'characters',
  'usage_source',
  'value',
  'status',
  'outcome',
  'queue_ms',
  'ttft_ms',
  'total_ms',
  'parent_request_id',
  'charged',
  'cached',
  'fallback_from',
] as const

/** Indexes on columns added after the first release: made after the columns are (a request's record and its internal calls). */
export const addedRecordIndexes = [
  'CREATE INDEX IF NOT EXISTS usage_records_request ON usage_records (request_id)',
  'CREATE INDEX IF NOT EXISTS usage_records_parent ON usage_records (parent_request_id)',
] as const

/** Columns added after the first release: each store adds them to an older table at start. */
export const addedRecordColumns = [
  { name: 'audio_seconds', sqlite: 'REAL NOT NULL DEFAULT 0', postgres: 'DOUBLE PRECISION NOT NULL DEFAULT 0' },
  { name: 'characters', sqlite: 'INTEGER NOT NULL DEFAULT 0', postgres: 'INTEGER NOT NULL DEFAULT 0' },
  { name: 'usage_source', sqlite: "TEXT NOT NULL DEFAULT 'reported'", postgres: "TEXT NOT NULL DEFAULT 'reported'" },
  { name: 'parent_request_id', sqlite: 'TEXT', postgres: 'TEXT' },
  // NULL on rows older than the column: their value was what was charged (spent() reads COALESCE(charged, value)).
  { name: 'charged', sqlite: 'REAL', postgres: 'DOUBLE PRECISION' },
  { name: 'cached', sqlite: 'INTEGER NOT NULL DEFAULT 0', postgres: 'SMALLINT NOT NULL DEFAULT 0' },
  { name: 'fallback_from', sqlite: 'TEXT', postgres: 'TEXT' },
] as const

export function recordValues(r: UsageRecord): (string | number | null)[] {
  return [
    r.at,
    r.requestId,
    r.keyId,
    r.group,
    r.route,
    r.modelRequested,
    r.model,
    r.upstreamModel,
    r.promptTokens,
    r.completionTokens,
    r.cachedTokens,
    r.audioSeconds,
    r.characters,
    r.usageSource,
    r.value,
    r.status,
    r.outcome,
    r.queueMs,
    r.ttftMs,
    r.totalMs,
    // A journal written before these fields existed replays records without them.
    r.parentRequestId ?? null,
    r.charged ?? r.value,
    r.cached ? 1 : 0,
    r.fallbackFrom ?? null,
  ]
}

type Row = Record<string, unknown>

const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0))
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v))
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))

export function recordFromRow(row: Row): UsageRecord {
  return {
    at: num(row.at),
    requestId: String(row.request_id),
    keyId: String(row.key_id),
    group: String(row.grp),
    route: String(row.route),
    modelRequested: String(row.model_requested),
    model: String(row.model),
    upstreamModel: strOrNull(row.upstream_model),
    promptTokens: num(row.prompt_tokens),
    completionTokens: num(row.completion_tokens),
    cachedTokens: num(row.cached_tokens),
    audioSeconds: num(row.audio_seconds),
    characters: num(row.characters),
    usageSource: String(row.usage_source ?? 'reported') as UsageRecord['usageSource'],
    value: num(row.value),
    status: num(row.status),
    outcome: String(row.outcome) as UsageRecord['outcome'],
    queueMs: numOrNull(row.queue_ms),
    ttftMs: numOrNull(row.ttft_ms),
    totalMs: num(row.total_ms),
    parentRequestId: strOrNull(row.parent_request_id),
    charged: row.charged === null || row.charged === undefined ? num(row.value) : num(row.charged),
    cached: Boolean(num(row.cached)),
    fallbackFrom: strOrNull(row.fallback_from),
  }
}

export function usageRowFromRow(row: Row): UsageRow {
  return {
    name: String(row.name),
    requests: num(row.requests),
    promptTokens: num(row.prompt_tokens),
    completionTokens: num(row.completion_tokens),
    cachedTokens: num(row.cached_tokens),
    audioSeconds: num(row.audio_seconds),
    characters: num(row.characters),
    value: num(row.value),
    internalRequests: num(row.internal_requests),
    internalPromptTokens: num(row.internal_prompt_tokens),
    internalCompletionTokens: num(row.internal_completion_tokens),
    charged: num(row.charged),
    lastAt: num(row.last_at),
  }
}

/** The grouping column of a usage summary (a fixed list: never spliced from input). */
export const dimensionColumn: Record<UsageDimension, string> = { key: 'key_id', model: 'model', group: 'grp' }

/** WHERE clause of a period, with placeholders made by `ph(n)` (n from 1), and its values. */
export function periodWhere(
  period: UsagePeriod,
  ph: (n: number) => string,
): { sql: string; values: (string | number)[] } {
  const parts = [`at >= ${ph(1)}`, `at < ${ph(2)}`]
  const values: (string | number)[] = [period.from, period.to]
  const add = (column: string, value: string | undefined) => {
    if (value === undefined) return
    values.push(value)
    parts.push(`${column} = ${ph(values.length)}`)
  }
  add('key_id', period.keyId)
  add('grp', period.group)
  add('model', period.model)
  if (period.requestId !== undefined) {
    // Twice: SQLite's placeholders are positional.
    values.push(period.requestId, period.requestId)
    parts.push(`(request_id = ${ph(values.length - 1)} OR parent_request_id = ${ph(values.length)})`)
  }
  return { sql: parts.join(' AND '), values }
}

/**
 * A summary's figures: client requests (no parent) and what they were told, internal calls
 * (boon rounds, drafts, verdict questions, Query service calls) apart, and what all of them
 * were charged. Told and charged differ where internal calls answered for a client request.
 */
const client = (column: string) => `COALESCE(SUM(CASE WHEN parent_request_id IS NULL THEN ${column} ELSE 0 END), 0)`
const internal = (column: string) => `COALESCE(SUM(CASE WHEN parent_request_id IS NULL THEN 0 ELSE ${column} END), 0)`
export const summaryColumns = `${client('1')} AS requests, ${client('prompt_tokens')} AS prompt_tokens,
  ${client('completion_tokens')} AS completion_tokens, ${client('cached_tokens')} AS cached_tokens,
  ${client('audio_seconds')} AS audio_seconds, ${client('characters')} AS characters,
  ${client('value')} AS value, ${internal('1')} AS internal_requests,
  ${internal('prompt_tokens')} AS internal_prompt_tokens, ${internal('completion_tokens')} AS internal_completion_tokens,
  COALESCE(SUM(COALESCE(charged, value)), 0) AS charged, MAX(at) AS last_at`

export function keyFromRow(row: Row): StoredKey {
  const budget = row.budget ? (JSON.parse(String(row.budget)) as StoredKey['budget']) : undefined
  return {
    id: String(row.id),
    group: String(row.grp),
    digest: String(row.digest ?? ''),
    enabled: Boolean(num(row.enabled)),
    legacy: Boolean(num(row.legacy)),
    budget,
    tokensPerMinute: numOrNull(row.tokens_per_minute) ?? undefined,
    expiresAt: numOrNull(row.expires_at) ?? undefined,
    models: row.models ? (JSON.parse(String(row.models)) as string[]) : undefined,
    requestsPerMinute: numOrNull(row.requests_per_minute) ?? undefined,
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
    deleted: Boolean(num(row.deleted)),
  }
}

export function keyValues(k: StoredKey): (string | number | null)[] {
  return [
    k.id,
    k.group,
    k.digest,
    k.enabled ? 1 : 0,
    k.legacy ? 1 : 0,
    k.budget ? JSON.stringify(k.budget) : null,
    k.tokensPerMinute ?? null,
    k.createdAt,
    k.updatedAt,
    k.deleted ? 1 : 0,
    k.expiresAt ?? null,
    k.models ? JSON.stringify(k.models) : null,
    k.requestsPerMinute ?? null,
  ]
}

export const keyColumns = [
  'id',
  'grp',
  'digest',
  'enabled',
  'legacy',
  'budget',
  'tokens_per_minute',
  'created_at',
  'updated_at',
  'deleted',
  'expires_at',
  'models',
  'requests_per_minute',
] as const

/** Columns of api_keys added after the first release: each store adds them to an older table at start. */
export const addedKeyColumns = [
  { name: 'expires_at', sqlite: 'INTEGER', postgres: 'BIGINT' },
  { name: 'models', sqlite: 'TEXT', postgres: 'TEXT' },
  { name: 'requests_per_minute', sqlite: 'INTEGER', postgres: 'INTEGER' },
] as const

export function groupFromRow(row: Row): StoredGroup {
  return {
    id: String(row.id),
    config: JSON.parse(String(row.config)) as GroupConfig,
    updatedAt: num(row.updated_at),
    deleted: Boolean(num(row.deleted)),
  }
}
