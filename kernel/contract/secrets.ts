/**
 * Secrets as every store of them keeps them: a secret is shown once and kept as its SHA-256; a
 * lookup compares digests in constant time. Keys, Query service tokens and the demo secrets
 * share these rules (docs/decisions.md: why SHA-256 without salt is enough for 256-bit secrets).
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { Logger } from './log.js'

export function hashSecret(secret: string): Buffer {
  return crypto.createHash('sha256').update(secret, 'utf8').digest()
}

export function formatHash(digest: Buffer): string {
  return `sha256:${digest.toString('hex')}`
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

/** A secret generated at first start, shown once (the start banner prints it), kept only hashed. */
export interface Announcement {
  /** What it is ("Demo API key"). */
  readonly label: string
  readonly secret: string
  /** The variable that chooses your own instead. */
  readonly envVar: string
  /** The file in the data folder that keeps its hash. */
  readonly file: string
}

export type Announce = (announcement: Announcement) => void

export interface DemoSecret {
  readonly id: string
  /** What the announcement calls it ("Demo API key"). */
  readonly label: string
  /** The variable that chooses the secret. */
  readonly envVar: string
  /** The file in the data folder that keeps its hash. */
  readonly fileName: string
  /** Of a generated secret (newSecret's default when absent). */
  readonly prefix?: string
}

/**
 * The demo secret's digest: from its environment variable, or generated once, printed once,
 * and kept only as its hash in the data folder.
 */
export function demoSecretDigest(
  demo: DemoSecret,
  options: { dataDir: string; env: NodeJS.ProcessEnv; log: Logger; announce?: Announce },
): Buffer {
  const fromEnv = options.env[demo.envVar]
  if (fromEnv) return hashSecret(fromEnv)
  const file = path.join(options.dataDir, demo.fileName)
  try {
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as { hash?: string }
    if (saved.hash?.startsWith('sha256:')) return Buffer.from(saved.hash.slice(7), 'hex')
  } catch {
    // Not there yet: made below.
  }
  const secret = newSecret(demo.prefix)
  const digest = hashSecret(secret)
  fs.mkdirSync(options.dataDir, { recursive: true })
  fs.writeFileSync(
    file,
    JSON.stringify({ id: demo.id, hash: formatHash(digest), created: new Date().toISOString() }, null, 2) + '\n',
    { mode: 0o600 },
  )
  const announcement = { label: demo.label, secret, envVar: demo.envVar, file }
  if (options.announce) options.announce(announcement)
  else process.stdout.write(`${describeAnnouncement(announcement)}\n`)
  options.log.info('demo secret generated', { id: demo.id })
  return digest
}

/** An announcement in plain lines: what it is, the secret, where its hash is, how to choose one's own. */
export function describeAnnouncement(a: Announcement): string {
  return `${a.label} (shown once, kept only hashed in ${a.file}):\n  ${a.secret}\nSet ${a.envVar} to choose your own.`
}
