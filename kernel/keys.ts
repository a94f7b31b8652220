/**
 * The key store. Secrets are never kept: a key is found by the SHA-256 of its secret, and the
 * digest is compared in constant time. SHA-256 without salt is enough here because keys are
 * 256-bit random strings, not passwords (docs/decisions.md).
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { KeyRecord, KeyStore } from './kernel.js'
import type { KeysFile } from '../schemas/keys.schema.js'
import type { Logger } from './log.js'

export function hashSecret(secret: string): Buffer {
  return crypto.createHash('sha256').update(secret, 'utf8').digest()
}

export function formatHash(digest: Buffer): string {
  return `sha256:${digest.toString('hex')}`
}

export function newSecret(): string {
  return `sk-sluice-${crypto.randomBytes(32).toString('base64url')}`
}

interface Entry {
  digest: Buffer
  record: KeyRecord
}

export class MemoryKeyStore implements KeyStore {
  // Bucketed by the digest's first byte as hex, so a lookup compares against few entries,
  // each in constant time; the bucket reveals nothing useful about a secret.
  private readonly buckets = new Map<string, Entry[]>()

  constructor(private readonly file: KeysFile) {}

  add(digest: Buffer, record: KeyRecord): void {
    const bucket = digest.toString('hex', 0, 1)
    const list = this.buckets.get(bucket) ?? []
    list.push({ digest, record })
    this.buckets.set(bucket, list)
  }

  lookup(secret: string): KeyRecord | undefined {
    const digest = hashSecret(secret)
    const list = this.buckets.get(digest.toString('hex', 0, 1))
    if (!list) return undefined
    let found: KeyRecord | undefined
    for (const entry of list) if (crypto.timingSafeEqual(entry.digest, digest)) found = entry.record
    return found
  }

  group(id: string) {
    return this.file.groups[id]
  }
}

/**
 * Builds the store from keys.yaml. The demo key's secret comes from SLUICE_DEMO_KEY, or is
 * generated once, printed once, and kept only as its hash in the data folder.
 */
export function createKeyStore(file: KeysFile, options: { dataDir: string; env: NodeJS.ProcessEnv; log: Logger; announce?: (line: string) => void }): MemoryKeyStore {
  const store = new MemoryKeyStore(file)
  for (const k of file.keys) {
    const record: KeyRecord = { id: k.id, group: k.group, enabled: k.enabled ?? true, legacy: k.legacy ?? false, config: k }
    if (k.hash) store.add(Buffer.from(k.hash.slice('sha256:'.length), 'hex'), record)
    if (k.demo) store.add(demoKeyDigest(k.id, options), record)
  }
  return store
}

function demoKeyDigest(id: string, options: { dataDir: string; env: NodeJS.ProcessEnv; log: Logger; announce?: (line: string) => void }): Buffer {
  const fromEnv = options.env.SLUICE_DEMO_KEY
  if (fromEnv) return hashSecret(fromEnv)
  const file = path.join(options.dataDir, 'demo-key.json')
  try {
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as { hash?: string }
    if (saved.hash?.startsWith('sha256:')) return Buffer.from(saved.hash.slice(7), 'hex')
  } catch {
    // Not there yet: made below.
  }
  const secret = newSecret()
  const digest = hashSecret(secret)
  fs.mkdirSync(options.dataDir, { recursive: true })
  fs.writeFileSync(file, JSON.stringify({ id, hash: formatHash(digest), created: new Date().toISOString() }, null, 2) + '\n', { mode: 0o600 })
  const announce = options.announce ?? ((line: string) => process.stdout.write(line + '\n'))
  announce(`Demo API key (shown once, kept only hashed in ${file}):\n  ${secret}\nSet SLUICE_DEMO_KEY to choose your own.`)
  options.log.info('demo key generated', { key: id })
  return digest
}
