/**
 * Config files for end-to-end tests, made from the embedded defaults with a few changes, so a
 * test states only what it changes (a narrow backend, a priced model, keys with budgets).
 */
import fs from 'node:fs'
import path from 'node:path'
import { dump, load } from 'js-yaml'
import { defaultConfigDir } from '../../kernel/contract/paths.js'
import { formatHash, hashSecret } from '../../protocols/credentials/secrets.js'

function defaults(name: string): Record<string, unknown> {
  return load(fs.readFileSync(path.join(defaultConfigDir, name), 'utf8')) as Record<string, unknown>
}

/** models.yaml with more backends and models. */
export function modelsWith(extra: { backends?: Record<string, object>; models?: object[] }): string {
  const doc = defaults('models.yaml') as { backends: Record<string, object>; models: object[] }
  Object.assign(doc.backends, extra.backends ?? {})
  doc.models.push(...(extra.models ?? []))
  return dump(doc)
}

/** server.yaml with some keys replaced (e.g. `stores`, `limits`). */
export function serverWith(patch: Record<string, unknown>): string {
  return dump({ ...defaults('server.yaml'), ...patch })
}

export interface TestKey {
  id: string
  group: string
  /** The secret the test sends; stored only as its hash. */
  secret: string
  budget?: { amount: number; term?: 'day' | 'week' | 'month' }
  tokens_per_minute?: number
  legacy?: boolean
  expires_at?: string | number
  models?: string[]
  requests_per_minute?: number
}

/** keys.yaml with these groups and keys (the demo key stays, in group `demo`). */
export function keysFile(groups: Record<string, object>, keys: TestKey[]): string {
  return dump({
    groups: { demo: {}, ...groups },
    keys: [
      { id: 'demo', group: 'demo', demo: true },
      ...keys.map(({ secret, ...k }) => ({ ...k, hash: formatHash(hashSecret(secret)) })),
    ],
  })
}
