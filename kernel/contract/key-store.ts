/** What plugins see of keys and groups: lookups on the request path, and the admin API's changes. */
import type { GroupConfig } from '../../schemas/keys.schema.js'

/** A spending budget per term, in indicative value. */
export interface TermBudget {
  readonly amount: number
  readonly term: 'day' | 'week' | 'month'
}

export interface KeyRecord {
  readonly id: string
  readonly group: string
  readonly enabled: boolean
  readonly legacy: boolean
  readonly budget?: TermBudget
  readonly tokensPerMinute?: number
  /** Epoch ms from which the key gets 401 "api key expired". */
  readonly expiresAt?: number
  /** Catalog ids and families the key may use, within its group's (catalog.permits checks both). */
  readonly models?: readonly string[]
  /** Requests a minute (the auth step counts them; 429 past it). */
  readonly requestsPerMinute?: number
  /** Where the key is defined: `config` (keys.yaml, the static seed) or `store` (the admin API). */
  readonly source: 'config' | 'store'
  /** Epoch ms; keys of the seed have none. */
  readonly createdAt?: number
  readonly updatedAt?: number
}

export interface GroupRecord {
  readonly id: string
  readonly config: GroupConfig
  readonly source: 'config' | 'store'
}

/**
 * API keys and groups: the keys.yaml seed overlaid by what the admin API stored. Lookups are
 * in memory (the request path never waits on a store); the secret is found by its SHA-256,
 * compared in constant time.
 */
export interface KeyStore {
  lookup(secret: string): KeyRecord | undefined
  /** A live key by id. */
  key(id: string): KeyRecord | undefined
  group(id: string): GroupConfig | undefined
  keys(): readonly KeyRecord[]
  groups(): readonly GroupRecord[]
  /** True when `secret` is the admin API's key. */
  isAdmin(secret: string): boolean
  /** Whether an admin key is set at all (without one the admin API is closed). */
  readonly adminConfigured: boolean
}

export interface NewKey {
  id?: string
  group: string
  enabled?: boolean
  legacy?: boolean
  budget?: TermBudget
  tokensPerMinute?: number
  /** ISO 8601 date-time with its zone, or epoch ms; checked (and refused with 400) by the store. */
  expiresAt?: string | number
  /** Checked against the catalog and the group's models (400 for a name the group may not use). */
  models?: readonly string[]
  requestsPerMinute?: number
}

/** A change to a key; `null` clears a budget, a limit, an expiry or the key's own models. */
export interface KeyChange {
  group?: string
  enabled?: boolean
  budget?: TermBudget | null
  tokensPerMinute?: number | null
  expiresAt?: string | number | null
  models?: readonly string[] | null
  requestsPerMinute?: number | null
}

/** Changes made through the admin API; they live in the store and apply without a restart. */
export interface KeyAdmin {
  /** Makes a key; its secret is returned here once and never again. */
  createKey(input: NewKey): Promise<{ key: KeyRecord; secret: string }>
  updateKey(id: string, change: KeyChange): Promise<KeyRecord>
  /** A new secret (the old one stops working) and, for a legacy key, the move to the current gateway. */
  rotateKey(id: string): Promise<{ key: KeyRecord; secret: string }>
  deleteKey(id: string): Promise<void>
  putGroup(id: string, config: unknown): Promise<GroupRecord>
  deleteGroup(id: string): Promise<void>
}
