/**
 * The key store. Secrets are never kept: a key is found by the SHA-256 of its secret, and the
 * digest is compared in constant time. SHA-256 without salt is enough here because keys are
 * 256-bit random strings, not passwords (docs/decisions.md).
 *
 * Two layers: keys.yaml is the static seed; the admin API writes to the store (StoredKeys,
 * cached in memory). A stored key overrides the seed key of the same id, so switching a seed
 * key off, rotating or deleting it through the admin API copies it into the store first.
 */
import crypto from 'node:crypto'
import type {
  GroupRecord,
  KeyAdmin,
  KeyChange,
  KeyRecord,
  KeyStore,
  NewKey,
  TermBudget,
} from '../../contract/key-store.js'
import { groupSchema, type GroupConfig, type KeysFile } from '../../../schemas/keys.schema.js'
import type { Logger } from '../../contract/log.js'
import type { StoredKey } from '../stores/store.js'
import type { StoredKeys } from './stored-keys.js'
import { DigestIndex, hashSecret, newSecret, parseHash } from '../../../protocols/credentials/secrets.js'
import { demoSecretDigest, type Announce } from './demo-secret.js'
import { GatewayError } from '../../contract/errors.js'
import { describeErrors, validatorFor } from '../../contract/ajv.js'
import { keyModelsProblem, type CatalogNames } from '../catalog/permits.js'
import { expiryTime } from './expiry.js'

const KEY_ID = /^[A-Za-z0-9_.-]{1,64}$/

const invalid = (problem: string): never => {
  throw new GatewayError(400, `invalid request: ${problem}`, { code: 'invalid_request' })
}
const GROUP_ID = /^[A-Za-z0-9_.-]{1,64}$/

interface SeedKey {
  digest: Buffer
  record: KeyRecord
}

export interface KeyStoreOptions {
  dataDir: string
  env: NodeJS.ProcessEnv
  log: Logger
  announce?: Announce
  /** The store's keys (the admin API); without it the seed is all there is and changes are refused. */
  stored?: StoredKeys
  /** `admin.key_hash` of server.yaml; SLUICE_ADMIN_KEY overrides it. */
  adminKeyHash?: string
  /** `admin.generate_key`: with neither of the above, an admin key made at first start and kept hashed. */
  generateAdminKey?: boolean
  now?: () => number
  /** The catalog, against which a key's own `models` are checked (unchecked without it). */
  catalog?: CatalogNames | (() => CatalogNames)
}

function seedRecord(k: KeysFile['keys'][number]): KeyRecord {
  return {
    id: k.id,
    group: k.group,
    enabled: k.enabled ?? true,
    legacy: k.legacy ?? false,
    budget: k.budget ? { amount: k.budget.amount, term: k.budget.term ?? 'month' } : undefined,
    tokensPerMinute: k.tokens_per_minute,
    // checkKeys has read it at load.
    expiresAt:
      k.expires_at === undefined
        ? undefined
        : expiryTime(k.expires_at, (problem) => {
            throw new Error(problem)
          }),
    models: k.models,
    requestsPerMinute: k.requests_per_minute,
    source: 'config',
  }
}

function storedRecord(k: StoredKey): KeyRecord {
  return {
    id: k.id,
    group: k.group,
    enabled: k.enabled,
    legacy: k.legacy,
    budget: k.budget ? { amount: k.budget.amount, term: k.budget.term ?? 'month' } : undefined,
    tokensPerMinute: k.tokensPerMinute,
    expiresAt: k.expiresAt,
    models: k.models,
    requestsPerMinute: k.requestsPerMinute,
    source: 'store',
    createdAt: k.createdAt,
    updatedAt: k.updatedAt,
  }
}

export class LayeredKeyStore implements KeyStore, KeyAdmin {
  private readonly seedIndex = new DigestIndex<SeedKey>()
  private readonly seedById = new Map<string, SeedKey>()
  private readonly adminDigest: Buffer | undefined
  private readonly now: () => number
  // Records of stored keys, rebuilt when the store's cache changes (not per request).
  private storedRecords = new Map<string, KeyRecord>()
  private readonly unsubscribe: (() => void) | undefined

  constructor(
    private readonly file: KeysFile,
    private readonly options: KeyStoreOptions,
  ) {
    this.now = options.now ?? Date.now
    const fromEnv = options.env.SLUICE_ADMIN_KEY
    if (fromEnv) this.adminDigest = hashSecret(fromEnv)
    else if (options.adminKeyHash) this.adminDigest = parseHash(options.adminKeyHash)
    else if (options.generateAdminKey)
      this.adminDigest = demoSecretDigest(
        {
          id: 'admin',
          label: 'Admin key',
          envVar: 'SLUICE_ADMIN_KEY',
          fileName: 'admin-key.json',
          prefix: 'sk-admin-',
        },
        options,
      )
    this.rebuildStored()
    this.unsubscribe = options.stored?.onChange(() => this.rebuildStored())
  }

  /** Adds a seed key (keys.yaml). */
  addSeed(digest: Buffer, record: KeyRecord): void {
    const entry = { digest, record }
    this.seedIndex.add(digest, entry)
    this.seedById.set(record.id, entry)
  }

  private rebuildStored(): void {
    const records = new Map<string, KeyRecord>()
    for (const k of this.options.stored?.keys() ?? []) if (!k.deleted) records.set(k.id, storedRecord(k))
    this.storedRecords = records
  }

  lookup(secret: string): KeyRecord | undefined {
    const digest = hashSecret(secret)
    const stored = this.options.stored?.findByDigest(digest)
    if (stored) return this.storedRecords.get(stored.id)
    const seed = this.seedIndex.find(digest)
    // A seed key the store knows (changed, rotated or deleted there) answers only to the store.
    if (!seed || this.options.stored?.key(seed.record.id)) return undefined
    return seed.record
  }

  key(id: string): KeyRecord | undefined {
    if (this.options.stored?.key(id)) return this.storedRecords.get(id)
    return this.seedById.get(id)?.record
  }

  keys(): readonly KeyRecord[] {
    const out = new Map<string, KeyRecord>()
    for (const [id, seed] of this.seedById) if (!this.options.stored?.key(id)) out.set(id, seed.record)
    for (const [id, record] of this.storedRecords) out.set(id, record)
    return [...out.values()].sort((a, b) => a.id.localeCompare(b.id))
  }

  group(id: string): GroupConfig | undefined {
    const stored = this.options.stored?.group(id)
    if (stored) return stored.deleted ? undefined : stored.config
    // Own properties only: an id such as `constructor` or `__proto__` names no group.
    return Object.hasOwn(this.file.groups, id) ? this.file.groups[id] : undefined
  }

  groups(): readonly GroupRecord[] {
    const out = new Map<string, GroupRecord>()
    for (const [id, config] of Object.entries(this.file.groups)) out.set(id, { id, config, source: 'config' })
    for (const g of this.options.stored?.groups() ?? []) {
      if (g.deleted) out.delete(g.id)
      else out.set(g.id, { id: g.id, config: g.config, source: 'store' })
    }
    return [...out.values()].sort((a, b) => a.id.localeCompare(b.id))
  }

  get adminConfigured(): boolean {
    return this.adminDigest !== undefined
  }

  isAdmin(secret: string): boolean {
    if (!this.adminDigest) return false
    return crypto.timingSafeEqual(hashSecret(secret), this.adminDigest)
  }

  // ——— KeyAdmin ———

  private get store(): StoredKeys {
    if (!this.options.stored) throw new GatewayError(503, 'the key store is not available')
    return this.options.stored
  }

  private requireGroup(id: string): void {
    if (!this.group(id)) throw new GatewayError(400, `group ${id} does not exist`, { code: 'invalid_request' })
  }

  /** A new `expires_at` in epoch ms: a time to come (400 otherwise). */
  private futureExpiry(raw: string | number): number {
    const at = expiryTime(raw, invalid)
    if (at <= this.now())
      invalid(`expires_at ${typeof raw === 'string' ? raw : new Date(raw).toISOString()} is in the past`)
    return at
  }

  /** A key's own `models`, checked against the catalog and its group's (400 for one the group may not use). */
  private checkModels(group: string, models: readonly string[] | undefined): void {
    const catalog = typeof this.options.catalog === 'function' ? this.options.catalog() : this.options.catalog
    if (!models || !catalog) return
    const problem = keyModelsProblem(group, this.group(group)?.models ?? ['*'], models, catalog)
    if (problem) invalid(problem)
  }

  /** The key as the store would keep it: the stored row, or the seed key copied. */
  private storedOrSeed(id: string): StoredKey {
    const stored = this.store.key(id)
    if (stored && !stored.deleted) return stored
    const seed = stored ? undefined : this.seedById.get(id)
    if (!seed) throw new GatewayError(404, `key ${id} does not exist`)
    const r = seed.record
    const now = this.now()
    return {
      id,
      group: r.group,
      digest: seed.digest.toString('hex'),
      enabled: r.enabled,
      legacy: r.legacy,
      budget: r.budget,
      tokensPerMinute: r.tokensPerMinute,
      expiresAt: r.expiresAt,
      models: r.models,
      requestsPerMinute: r.requestsPerMinute,
      createdAt: now,
      updatedAt: now,
      deleted: false,
    }
  }

  async createKey(input: NewKey): Promise<{ key: KeyRecord; secret: string }> {
    const id = input.id ?? `key-${crypto.randomBytes(6).toString('hex')}`
    if (!KEY_ID.test(id))
      throw new GatewayError(400, `invalid request: key id must match ${KEY_ID.source}`, { code: 'invalid_request' })
    this.requireGroup(input.group)
    this.checkModels(input.group, input.models)
    const expiresAt = input.expiresAt === undefined ? undefined : this.futureExpiry(input.expiresAt)
    if (this.seedById.has(id)) throw new GatewayError(409, `key ${id} already exists`)
    const secret = newSecret()
    const now = this.now()
    const row: StoredKey = {
      id,
      group: input.group,
      digest: hashSecret(secret).toString('hex'),
      enabled: input.enabled ?? true,
      legacy: input.legacy ?? false,
      budget: input.budget,
      tokensPerMinute: input.tokensPerMinute,
      expiresAt,
      models: input.models,
      requestsPerMinute: input.requestsPerMinute,
      createdAt: now,
      updatedAt: now,
      deleted: false,
    }
    if (!(await this.store.table.insertKey(row))) throw new GatewayError(409, `key ${id} already exists`)
    await this.store.reload()
    this.options.log.info('key created', { key: id, group: input.group })
    return { key: this.key(id)!, secret }
  }

  async updateKey(id: string, change: KeyChange): Promise<KeyRecord> {
    const current = this.storedOrSeed(id)
    if (change.group !== undefined) this.requireGroup(change.group)
    const budget: TermBudget | undefined =
      change.budget === null ? undefined : ((change.budget ?? current.budget) as TermBudget | undefined)
    const kept = <T>(next: T | null | undefined, now: T | undefined): T | undefined =>
      next === null ? undefined : (next ?? now)
    const group = change.group ?? current.group
    // New models, or a new group: the models kept must be within the group the key ends in.
    const models = kept(change.models, current.models)
    if (change.models !== undefined || change.group !== undefined) this.checkModels(group, models)
    const expiresAt =
      change.expiresAt === null || change.expiresAt === undefined
        ? kept(change.expiresAt, current.expiresAt)
        : this.futureExpiry(change.expiresAt)
    await this.store.table.putKey({
      ...current,
      group,
      enabled: change.enabled ?? current.enabled,
      budget,
      tokensPerMinute: kept(change.tokensPerMinute, current.tokensPerMinute),
      expiresAt,
      models,
      requestsPerMinute: kept(change.requestsPerMinute, current.requestsPerMinute),
      updatedAt: this.now(),
    })
    await this.store.reload()
    this.options.log.info('key changed', { key: id, enabled: change.enabled })
    return this.key(id)!
  }

  async rotateKey(id: string): Promise<{ key: KeyRecord; secret: string }> {
    const current = this.storedOrSeed(id)
    const secret = newSecret()
    // Rotation also moves a legacy key to the current gateway (the spec's Authentication rule 2).
    await this.store.table.putKey({
      ...current,
      digest: hashSecret(secret).toString('hex'),
      legacy: false,
      updatedAt: this.now(),
    })
    await this.store.reload()
    this.options.log.info('key rotated', { key: id })
    return { key: this.key(id)!, secret }
  }

  async deleteKey(id: string): Promise<void> {
    const current = this.storedOrSeed(id)
    await this.store.table.putKey({ ...current, digest: '', enabled: false, deleted: true, updatedAt: this.now() })
    await this.store.reload()
    this.options.log.info('key deleted', { key: id })
  }

  async putGroup(id: string, config: unknown): Promise<GroupRecord> {
    if (!GROUP_ID.test(id))
      throw new GatewayError(400, `invalid request: group id must match ${GROUP_ID.source}`, {
        code: 'invalid_request',
      })
    const copy = structuredClone(config ?? {})
    const validate = validatorFor(groupSchema)
    if (!validate(copy))
      throw new GatewayError(400, `invalid request: ${describeErrors(validate.errors)}`, { code: 'invalid_request' })
    await this.store.table.putGroup({ id, config: copy as GroupConfig, updatedAt: this.now(), deleted: false })
    await this.store.reload()
    this.options.log.info('group stored', { group: id })
    return this.groups().find((g) => g.id === id)!
  }

  async deleteGroup(id: string): Promise<void> {
    const config = this.group(id)
    if (!config) throw new GatewayError(404, `group ${id} does not exist`)
    const members = this.keys()
      .filter((k) => k.group === id)
      .map((k) => k.id)
    if (members.length > 0) throw new GatewayError(409, `group ${id} still has keys: ${members.join(', ')}`)
    await this.store.table.putGroup({ id, config, updatedAt: this.now(), deleted: true })
    await this.store.reload()
    this.options.log.info('group deleted', { group: id })
  }

  /** Stops following the store (the generation is retired). */
  close(): void {
    this.unsubscribe?.()
  }
}

/**
 * Builds the store from keys.yaml (and the admin API's store, when given). The demo key's
 * secret comes from SLUICE_DEMO_KEY, or is generated once, printed once, and kept only as its
 * hash in the data folder.
 */
export function createKeyStore(file: KeysFile, options: KeyStoreOptions): LayeredKeyStore {
  const store = new LayeredKeyStore(file, options)
  for (const k of file.keys) {
    const record = seedRecord(k)
    if (k.hash) store.addSeed(parseHash(k.hash), record)
    else if (k.demo) store.addSeed(demoKeyDigest(k.id, options), record)
  }
  return store
}

function demoKeyDigest(
  id: string,
  options: { dataDir: string; env: NodeJS.ProcessEnv; log: Logger; announce?: Announce },
): Buffer {
  return demoSecretDigest({ id, label: 'Demo API key', envVar: 'SLUICE_DEMO_KEY', fileName: 'demo-key.json' }, options)
}
