/**
 * The in-memory cache of the keys and groups made through the admin API, so that `lookup` on
 * the request path never touches the store. Changes made in this process apply at once (the
 * cache reloads right after the write); changes made by other replicas are seen within
 * `keys_refresh_ms`, by polling the store's change counter (one tiny query).
 */
import type { KeysSnapshot, KeysTable, StoredGroup, StoredKey } from '../stores/store.js'
import type { Logger } from '../../contract/log.js'
import { PolledSnapshot } from '../stores/polled-snapshot.js'
import { DigestIndex } from '../../../protocols/credentials/secrets.js'

export class StoredKeys {
  private byId = new Map<string, StoredKey>()
  private index = new DigestIndex<StoredKey>()
  private groupsById = new Map<string, StoredGroup>()
  private readonly listeners = new Set<() => void>()
  private readonly polled: PolledSnapshot<KeysSnapshot>

  private constructor(
    readonly table: KeysTable,
    log: Logger,
    refreshMs: number,
  ) {
    this.polled = new PolledSnapshot(table, (snapshot) => this.apply(snapshot), { refreshMs, log, what: 'key store' })
  }

  static async open(table: KeysTable, options: { refreshMs: number; log: Logger }): Promise<StoredKeys> {
    const stored = new StoredKeys(table, options.log, options.refreshMs)
    await stored.reload()
    return stored
  }

  /** The store's key with this id (deleted ones too: a tombstone hides a seed key). */
  key(id: string): StoredKey | undefined {
    return this.byId.get(id)
  }

  keys(): IterableIterator<StoredKey> {
    return this.byId.values()
  }

  /** A live (not deleted) key by the digest of its secret. */
  findByDigest(digest: Buffer): StoredKey | undefined {
    return this.index.find(digest)
  }

  group(id: string): StoredGroup | undefined {
    return this.groupsById.get(id)
  }

  groups(): IterableIterator<StoredGroup> {
    return this.groupsById.values()
  }

  /** Called after every reload that changed something (key stores rebuild their views). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Reloads now (after a write of ours, so the next request sees it). */
  reload(): Promise<void> {
    return this.polled.reload()
  }

  private apply(snapshot: KeysSnapshot): void {
    const byId = new Map<string, StoredKey>()
    const index = new DigestIndex<StoredKey>()
    for (const k of snapshot.keys) {
      byId.set(k.id, k)
      if (!k.deleted && k.digest) index.add(Buffer.from(k.digest, 'hex'), k)
    }
    this.byId = byId
    this.index = index
    this.groupsById = new Map(snapshot.groups.map((g) => [g.id, g]))
    for (const listener of this.listeners) listener()
  }

  close(): void {
    this.polled.close()
    this.listeners.clear()
  }
}
