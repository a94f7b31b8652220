/**
 * The cache of one route in process memory: least recently used entries go first once either
 * bound (entries, bytes) would be passed; expired entries are dropped when met and swept from
 * the oldest end on every write. A Map keeps insertion order, so reinserting on a hit makes it
 * the most recent.
 */
import type { CacheStore } from './cache-store.js'

export interface MemoryBounds {
  readonly maxEntries: number
  readonly maxBytes: number
}

interface Entry {
  readonly text: string
  readonly bytes: number
  readonly expiresAt: number
}

export class MemoryStore implements CacheStore {
  private readonly entries = new Map<string, Entry>()
  private total = 0

  constructor(private bounds: MemoryBounds) {}

  /** New bounds (a reload changed them): evicts at once down to them. */
  resize(bounds: MemoryBounds): void {
    this.bounds = bounds
    this.evict(0)
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.total }
  }

  get(key: string, now: number): string | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    this.entries.delete(key)
    if (entry.expiresAt <= now) {
      this.total -= entry.bytes
      return undefined
    }
    this.entries.set(key, entry)
    return entry.text
  }

  set(key: string, text: string, now: number, expiresAt: number): void {
    // Two bytes a UTF-16 code unit: what the string holds in memory, near enough.
    const bytes = text.length * 2 + key.length * 2
    if (bytes > this.bounds.maxBytes) return
    this.drop(key)
    this.evict(bytes, now)
    this.entries.set(key, { text, bytes, expiresAt })
    this.total += bytes
  }

  clear(): void {
    this.entries.clear()
    this.total = 0
  }

  private drop(key: string): void {
    const old = this.entries.get(key)
    if (!old) return
    this.entries.delete(key)
    this.total -= old.bytes
  }

  /** Makes room for `bytes` more (and one more entry when bytes > 0); expired entries first met go too. */
  private evict(bytes: number, now = -Infinity): void {
    const room = bytes > 0 ? 1 : 0
    for (const [key, entry] of this.entries) {
      const full = this.entries.size + room > this.bounds.maxEntries || this.total + bytes > this.bounds.maxBytes
      if (!full && entry.expiresAt > now) break
      this.entries.delete(key)
      this.total -= entry.bytes
    }
  }
}
