/**
 * The durable store behind usage records and the keys made through the admin API. Two
 * implementations with one test suite: SQLite in the data folder (the embedded default) and
 * PostgreSQL (scale-out). Both are written to off the request path only.
 */
import type { GroupConfig } from '../../../schemas/keys.schema.js'
import type { ResponsesTable } from './responses-table.js'

/** One request that reached a model. Figures and identifiers only: never prompt or reply text. */
export interface UsageRecord {
  /** Epoch ms at which the request started. */
  readonly at: number
  readonly requestId: string
  readonly keyId: string
  readonly group: string
  /** Route id (`chat`, `completions`, `chat-internal` …): tells client requests from in-process calls. */
  readonly route: string
  /** The `model` the client asked for (a catalog id, a family, a server name or `auto`). */
  readonly modelRequested: string
  /** The catalog model that answered. */
  readonly model: string
  /** The name the model server reported, when it reported one. */
  readonly upstreamModel: string | null
  readonly promptTokens: number
  readonly completionTokens: number
  readonly cachedTokens: number
  /** Seconds of audio transcribed or translated (0 elsewhere). */
  readonly audioSeconds: number
  /** Input characters of speech (0 elsewhere). */
  readonly characters: number
  /** `reported` by the model server, `estimated` by the gateway (cut, abandoned), `none` (nothing ran). */
  readonly usageSource: 'reported' | 'estimated' | 'none'
  /** Indicative value from the model's prices (no charge is made). */
  readonly value: number
  /** HTTP status of the reply (499: the client went away). */
  readonly status: number
  readonly outcome: 'done' | 'failed' | 'aborted'
  /** Time waited for model capacity, ms (null on routes without a fair queue). */
  readonly queueMs: number | null
  /** From the request's start to the first token, ms (null when no token came). */
  readonly ttftMs: number | null
  readonly totalMs: number
}

export interface UsagePeriod {
  /** Epoch ms, inclusive. */
  readonly from: number
  /** Epoch ms, exclusive. */
  readonly to: number
  readonly keyId?: string
  readonly group?: string
  readonly model?: string
}

export type UsageDimension = 'key' | 'model' | 'group'

/** Usage summed over a period for one key, model or group. */
export interface UsageRow {
  readonly name: string
  readonly requests: number
  readonly promptTokens: number
  readonly completionTokens: number
  readonly cachedTokens: number
  readonly audioSeconds: number
  readonly characters: number
  readonly value: number
  /** Start of the period's latest request (epoch ms): a key's "last use" in the portal. */
  readonly lastAt: number
}

/** Whose spending a sum of records is: one key's, or one group's. */
export type SpendScope = { readonly keyId: string } | { readonly group: string }

export interface RecordsTable {
  insert(records: readonly UsageRecord[]): Promise<void>
  /**
   * Inserts those of the records not in the table yet (same request id, route and start):
   * the replay of a journal, which may hold records a batch wrote just before a crash.
   */
  insertMissing(records: readonly UsageRecord[]): Promise<number>
  /** Records of a period, newest first. */
  list(period: UsagePeriod, limit: number): Promise<UsageRecord[]>
  summarize(period: UsagePeriod, by: UsageDimension): Promise<UsageRow[]>
  /** Indicative value spent by a key or a group by requests started in [since, until) (epoch ms): seeds and reconciles term budgets. */
  spent(scope: SpendScope, since: number, until?: number): Promise<number>
  /** Deletes records older than `before` (epoch ms); returns how many. */
  purge(before: number): Promise<number>
  /** A cheap round trip (`SELECT 1`), for the readiness probe; rejects when the store does not answer. */
  ping(): Promise<void>
}

/** A key as the store keeps it: its secret only as a SHA-256 digest. */
export interface StoredKey {
  readonly id: string
  readonly group: string
  /** sha256 of the secret, hex; empty on a deleted key. */
  readonly digest: string
  readonly enabled: boolean
  readonly legacy: boolean
  readonly budget?: { amount: number; term?: 'day' | 'week' | 'month' }
  readonly tokensPerMinute?: number
  readonly createdAt: number
  readonly updatedAt: number
  /** A deleted key stays as a tombstone, so its id is never reused and a seed key it overrides stays gone. */
  readonly deleted: boolean
}

export interface StoredGroup {
  readonly id: string
  readonly config: GroupConfig
  readonly updatedAt: number
  readonly deleted: boolean
}

export interface KeysSnapshot {
  readonly version: number
  readonly keys: readonly StoredKey[]
  readonly groups: readonly StoredGroup[]
}

export interface KeysTable {
  /** A number that grows with every change: replicas poll it to know when to reload. */
  version(): Promise<number>
  load(): Promise<KeysSnapshot>
  /** Inserts a new key; false when the id is taken (deleted ids included). */
  insertKey(key: StoredKey): Promise<boolean>
  /** Replaces a key, or inserts it (a seed key's first change). */
  putKey(key: StoredKey): Promise<void>
  putGroup(group: StoredGroup): Promise<void>
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres'
  readonly records: RecordsTable
  readonly keys: KeysTable
  /** Responses API responses kept with `store: true` (responses-table.ts). */
  readonly responses: ResponsesTable
  close(): Promise<void>
}
