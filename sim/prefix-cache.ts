/**
 * Automatic prefix caching as vLLM V1 does it: the prompt is cut into blocks of 16 tokens, each
 * block keyed by a hash chained over every token before it, and a request reuses the longest run
 * of leading blocks already in the cache. Blocks are evicted least recently used first.
 */
import { hashNumbers } from './seeded-random.js'

export const blockSize = 16

export class PrefixCache {
  /** Block key → true; a Map keeps insertion order, which makes it an LRU when keys are re-inserted on use. */
  private readonly blocks = new Map<number, true>()

  constructor(private readonly capacityBlocks: number) {}

  get size(): number {
    return this.blocks.size
  }

  /**
   * Reports how many leading prompt tokens were already cached, then caches all full blocks of
   * this prompt. Like vLLM, the last prompt token is always computed again, so a fully cached
   * prompt still reports one block less when its length is a multiple of the block size.
   */
  lookupAndStore(tokens: readonly number[]): number {
    const fullBlocks = Math.floor(tokens.length / blockSize)
    let previous = 0
    let hits = 0
    let stillHitting = true
    for (let block = 0; block < fullBlocks; block++) {
      const key = hashNumbers(tokens, block * blockSize, (block + 1) * blockSize, previous)
      previous = key
      if (stillHitting && this.blocks.has(key)) hits++
      else stillHitting = false
      this.touch(key)
    }
    const cacheable = Math.floor(Math.max(0, tokens.length - 1) / blockSize)
    return Math.min(hits, cacheable) * blockSize
  }

  private touch(key: number): void {
    this.blocks.delete(key)
    this.blocks.set(key, true)
    if (this.blocks.size > this.capacityBlocks) {
      const oldest = this.blocks.keys().next()
      if (!oldest.done) this.blocks.delete(oldest.value)
    }
  }
}
