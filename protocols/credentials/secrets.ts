/**
 * Secrets as every store of them keeps them: a secret is shown once and kept as its SHA-256,
 * written `sha256:<hex>` in config files (keys.yaml `hash`, server.yaml `key_hash`); a lookup
 * compares digests in constant time. Keys, Query service tokens, the metrics token and the demo
 * secrets share these rules (docs/decisions.md: why SHA-256 without salt is enough for 256-bit
 * secrets).
 */
import crypto from 'node:crypto'

export function hashSecret(secret: string): Buffer {
  return crypto.createHash('sha256').update(secret, 'utf8').digest()
}

export function formatHash(digest: Buffer): string {
  return `sha256:${digest.toString('hex')}`
}

/** The digest a `sha256:<hex>` of a config file names (the schemas check its form). */
export function parseHash(text: string): Buffer {
  return Buffer.from(text.slice('sha256:'.length), 'hex')
}

/** 256 random bits; the prefix tells what the secret opens (`sk-sluice-` a key, `qt-` a Query service token). */
export function newSecret(prefix = 'sk-sluice-'): string {
  return `${prefix}${crypto.randomBytes(32).toString('base64url')}`
}

/** Digests bucketed by their first byte; within a bucket each is compared in constant time. */
export class DigestIndex<T> {
  private readonly buckets = new Map<number, { digest: Buffer; value: T }[]>()

  add(digest: Buffer, value: T): void {
    const list = this.buckets.get(digest[0]!) ?? []
    list.push({ digest, value })
    this.buckets.set(digest[0]!, list)
  }

  find(digest: Buffer): T | undefined {
    const list = this.buckets.get(digest[0]!)
    if (!list) return undefined
    let found: T | undefined
    for (const entry of list) if (crypto.timingSafeEqual(entry.digest, digest)) found = entry.value
    return found
  }
}
