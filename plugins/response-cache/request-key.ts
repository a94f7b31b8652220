/**
 * The key of a cached answer: a SHA-256 of the normalised request and of who may share its
 * answer. Normalised: the body's fields as JSON with every object's keys sorted, the model
 * replaced by the catalog model that answers (a family or `auto` resolved), top-level nulls
 * dropped (they mean "the default", as absence does), and the fields that do not change the
 * answer left out. The caller's group is part of it, so groups never share answers; so are the
 * request headers that may change the answer (the caller gives them: index.ts, answerHeaders).
 */
import crypto from 'node:crypto'

/** Body fields that do not change the answer: how it is delivered, who asked, what is kept of it. */
export const IGNORED_FIELDS: ReadonlySet<string> = new Set([
  'model', // replaced by the catalog model that answers
  'stream',
  'stream_options',
  'user',
  'metadata',
  'store',
  'service_tier',
  'safety_identifier',
  'prompt_cache_key',
])

export interface KeyParts {
  /** The route (`chat`, `completions` …): answers of different shapes never meet. */
  readonly route: string
  readonly group: string
  /** Legacy keys go through the older gateway: their answers are kept apart. */
  readonly legacy: boolean
  /** Catalog id of the model that answers. */
  readonly model: string
  readonly body: unknown
  /** Forwarded request headers, by name, as sent. */
  readonly headers: Readonly<Record<string, string>>
}

export function cacheKey(parts: KeyParts): string {
  const body: Record<string, unknown> = {}
  if (parts.body !== null && typeof parts.body === 'object')
    for (const [field, value] of Object.entries(parts.body))
      if (!IGNORED_FIELDS.has(field) && value !== null && value !== undefined) body[field] = value
  const text = canonicalJson({
    v: 1,
    route: parts.route,
    group: parts.group,
    legacy: parts.legacy,
    model: parts.model,
    headers: parts.headers,
    body,
  })
  return crypto.createHash('sha256').update(text).digest('hex')
}

/** JSON with the keys of every object sorted (arrays keep their order; undefined members are left out). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`
  const members: string[] = []
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key]
    if (v !== undefined) members.push(`${JSON.stringify(key)}:${canonicalJson(v)}`)
  }
  return `{${members.join(',')}}`
}
