/**
 * The realtime route's semantic cache: answers kept by the embedding of what was asked, and
 * found again for a question close enough (cosine similarity at or above the threshold) under
 * the same scope (the project and the settings that shape an answer). In memory, bounded in
 * entries (the oldest goes first) and in age. A shared cache (Redis) would implement the same
 * two methods (docs/operator-guide.md, "Realtime semantic cache").
 */

export interface CachedAnswer {
  readonly text: string
  readonly sources: unknown
}

export interface CacheHit {
  readonly answer: CachedAnswer
  readonly similarity: number
}

export interface SemanticCache {
  find(scope: string, vector: Float32Array): Promise<CacheHit | undefined>
  keep(scope: string, vector: Float32Array, answer: CachedAnswer): Promise<void>
}

interface Entry {
  readonly scope: string
  readonly vector: Float32Array
  readonly answer: CachedAnswer
  readonly at: number
}

export interface MemoryCacheOptions {
  readonly threshold: number
  readonly maxEntries: number
  readonly maxAgeMs: number
  readonly now: () => number
}

export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!
    na += a[i]! * a[i]!
    nb += b[i]! * b[i]!
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb)
}

/** A linear scan: the bound on entries (default 1,000) keeps it well under a millisecond. */
export function memorySemanticCache(o: MemoryCacheOptions): SemanticCache {
  const entries: Entry[] = []
  const expire = () => {
    const oldest = o.now() - o.maxAgeMs
    while (entries.length && entries[0]!.at < oldest) entries.shift()
  }
  return {
    async find(scope, vector) {
      expire()
      let best: CacheHit | undefined
      for (const e of entries) {
        if (e.scope !== scope) continue
        const similarity = cosine(e.vector, vector)
        if (similarity >= o.threshold && (!best || similarity > best.similarity))
          best = { answer: e.answer, similarity }
      }
      return best
    },
    async keep(scope, vector, answer) {
      expire()
      entries.push({ scope, vector, answer, at: o.now() })
      while (entries.length > o.maxEntries) entries.shift()
    },
  }
}
