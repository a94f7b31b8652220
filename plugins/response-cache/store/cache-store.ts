/**
 * Where cached answers live: in process memory (one Sluice process) or in Redis (every replica
 * shares it). A store holds opaque entries (JSON text) under hashed keys, each with its own
 * expiry; it never sees a prompt.
 */

/** One cached answer as the plugin keeps it (stored as JSON text). */
export interface CachedAnswer {
  /** The whole completion as the client got it (JSON text: served as it is). */
  readonly body: string
  /** The catalog id of the model the client was told answered. */
  readonly model: string
  /** What the client was told it used (the kernel's `Used`, figures only). */
  readonly used: {
    readonly inputTokens: number
    readonly outputTokens: number
    readonly cachedTokens: number
    readonly characters: number
    readonly audioSeconds: number
    readonly source: 'reported' | 'estimated' | 'none'
  }
  /** Epoch ms (the kernel's clock) after which the entry is not served. */
  readonly expiresAt: number
}

export interface CacheStore {
  /** The entry's text, or undefined when there is none (or it has expired). */
  get(key: string, now: number): Promise<string | undefined> | string | undefined
  /** Keeps `text` from `now` until `expiresAt` (the kernel's clock; a store with a clock of its own keeps the span). */
  set(key: string, text: string, now: number, expiresAt: number): Promise<void> | void
}
