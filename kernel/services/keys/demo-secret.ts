/**
 * Demo secrets (the demo API key, the generated admin key, a project's demo token): from their
 * environment variable, or generated at first start, shown once and kept only as their hash in
 * the data folder. The key store uses them, and the composition root hands them to domains
 * (`DomainContext.demoSecret`): they write files, so they are a service, not a wire rule.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { DemoSecret } from '../../contract/domain.js'
import type { Logger } from '../../contract/log.js'
import { formatHash, hashSecret, newSecret, parseHash } from '../../../protocols/credentials/secrets.js'

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
    if (saved.hash?.startsWith('sha256:')) return parseHash(saved.hash)
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
