/**
 * Which replica last served each prefix block: a bounded LRU map from block hash to replica
 * index (a Map keeps insertion order, so re-inserting on use makes the oldest entry first).
 * It is the gateway's guess of each replica's prefix cache, as llm-d's approximate scorer
 * keeps one, without asking the servers.
 */
export class PrefixIndex {
  private readonly owners = new Map<number, number>()

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.owners.size
  }

  /**
   * The replica that served the longest run of leading blocks and `eligible` accepts, or -1.
   * Blocks are chained, so a hit on block k means blocks 0..k matched: the scan stops at the
   * first miss and the deepest eligible owner wins.
   */
  longestOwner(hashes: Uint32Array, count: number, eligible: (replica: number) => boolean): number {
    let best = -1
    for (let i = 0; i < count; i++) {
      const owner = this.owners.get(hashes[i]!)
      if (owner === undefined) break
      if (eligible(owner)) best = owner
    }
    return best
  }

  /** Records that `replica` now holds every block of this prompt. */
  store(hashes: Uint32Array, count: number, replica: number): void {
    for (let i = 0; i < count; i++) {
      const key = hashes[i]!
      this.owners.delete(key)
      this.owners.set(key, replica)
    }
    while (this.owners.size > this.capacity) {
      const oldest = this.owners.keys().next()
      if (oldest.done) break
      this.owners.delete(oldest.value)
    }
  }
}
