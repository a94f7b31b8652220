/**
 * Prefix blocks of a rendered prompt, for prefix-aware routing in the manner of llm-d's precise
 * prefix-cache scorer: the prompt is cut into fixed-size blocks, each keyed by a hash chained
 * over everything before it, so that two requests share block k's key only if they share the
 * whole prefix up to it. The gateway does not tokenize; it hashes characters of the request
 * body from its prompt on (`messages`, `prompt` or `input`), which is the chat template's input
 * in the order the server renders it. One pass over the text, no allocation but the hashes'
 * buffer, which is reused across requests.
 */

const PROMPT_KEYS = ['"messages":', '"prompt":', '"input":'] as const

/** Where the prompt starts in a JSON request body (the whole body when no prompt key is found). */
export function promptStart(body: string): number {
  for (const key of PROMPT_KEYS) {
    const at = body.indexOf(key)
    if (at >= 0) return at
  }
  return 0
}

export class PrefixHasher {
  private buffer = new Uint32Array(64)

  constructor(private readonly blockChars: number) {}

  /**
   * Hashes every full block of `body` from `start` (FNV-1a 32-bit, each block seeded with the
   * previous block's hash) and returns how many; the hashes are `hashes()[0 .. count)` until the
   * next call. A partial last block is left out: it could not match a longer prompt anyway.
   */
  hash(body: string, start: number): number {
    const count = Math.floor((body.length - start) / this.blockChars)
    if (count > this.buffer.length) this.buffer = new Uint32Array(Math.max(count, this.buffer.length * 2))
    let previous = 0x811c9dc5
    for (let block = 0; block < count; block++) {
      let h = previous
      const from = start + block * this.blockChars
      const to = from + this.blockChars
      for (let i = from; i < to; i++) {
        h ^= body.charCodeAt(i)
        h = Math.imul(h, 0x01000193)
      }
      previous = h >>> 0
      this.buffer[block] = previous
    }
    return count
  }

  hashes(): Uint32Array {
    return this.buffer
  }
}
