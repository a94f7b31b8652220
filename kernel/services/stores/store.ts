/**
 * The durable store behind usage records and the keys made through the admin API. Two
 * implementations with one test suite: SQLite in the data folder (the embedded default) and
 * PostgreSQL (scale-out). Both are written to off the request path only.
 */
import type { GroupConfig } from '../../../schemas/keys.schema.js'

import type { SpendScope, UsageDimension, UsagePeriod, UsageRecord, UsageRow } from '../../contract/records.js'

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
  /** Epoch ms. */
  readonly expiresAt?: number
  readonly models?: readonly string[]
  readonly requestsPerMinute?: number
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
  close(): Promise<void>
}
