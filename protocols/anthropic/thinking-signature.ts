/**
 * The `signature` of a thinking block. Anthropic's is an opaque token its API checks when the
 * thinking is sent back; clients keep it and return it, and some refuse a thinking block
 * without one. The gateway forwards no thinking upstream, so nothing checks it: it is the
 * SHA-256 of the thinking text (base64), stable for the same text and claiming nothing more.
 */
import { createHash, type Hash } from 'node:crypto'

/** A signature computed as the thinking streams in. */
export class ThinkingSignature {
  private readonly hash: Hash = createHash('sha256')

  add(text: string): void {
    this.hash.update(text)
  }

  digest(): string {
    return this.hash.digest('base64')
  }
}

export function thinkingSignature(thinking: string): string {
  const s = new ThinkingSignature()
  s.add(thinking)
  return s.digest()
}
