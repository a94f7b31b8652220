/**
 * What every `sluice` command shares: the exit codes, the error kinds that map to them, the
 * flags common to all commands, the admin API client and plain-text tables.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'

/** The exit codes scripts rely on (docs/operator-guide.md "The sluice CLI"). */
export const EXIT = { ok: 0, failed: 1, usage: 2, unreachable: 3 } as const

/** Bad command line: the entry point prints it with the usage text and exits 2. */
export class UsageError extends Error {}
/** The operation failed (an HTTP error carries the API's message): exit 1. */
export class FailedError extends Error {}
/** No answer from the gateway at all (refused, DNS, reset): exit 3. */
export class UnreachableError extends Error {}

export interface Io {
  out: (text: string) => void
  env: NodeJS.ProcessEnv
}

export type Options = NonNullable<ParseArgsConfig['options']>

/** The flags every command accepts besides its own. */
const commonOptions = {
  url: { type: 'string' },
  'admin-key': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies Options

/** What `parse` hands to parseArgs: its return type is named through it (declaration emit needs a name). */
type StrictArgs<O extends Options> = {
  args: string[]
  allowPositionals: true
  strict: true
  options: typeof commonOptions & O
}

/** parseArgs in strict mode, its errors turned into UsageError (exit 2). */
export function parse<O extends Options>(args: string[], options: O): ReturnType<typeof parseArgs<StrictArgs<O>>> {
  try {
    return parseArgs({ args, allowPositionals: true, strict: true, options: { ...commonOptions, ...options } })
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
}

export function gatewayUrl(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const raw = flag ?? (env.SLUICE_URL || 'http://127.0.0.1:8080')
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new UsageError(`--url ${JSON.stringify(raw)} is not a URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('--url must be http or https')
  return url.href.replace(/\/+$/, '')
}

export function adminKey(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const key = flag ?? env.SLUICE_ADMIN_KEY
  if (!key) throw new UsageError('the admin key is required: --admin-key or SLUICE_ADMIN_KEY')
  return key
}

export interface AdminClient {
  call(method: string, path: string, body?: unknown): Promise<unknown>
}

export function adminClient(values: { url?: string; 'admin-key'?: string }, env: NodeJS.ProcessEnv): AdminClient {
  const base = gatewayUrl(values.url, env)
  const key = adminKey(values['admin-key'], env)
  return {
    async call(method, path, body) {
      let res: Response
      try {
        res = await fetch(`${base}/admin${path}`, {
          method,
          headers: {
            authorization: `Bearer ${key}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
      } catch (err) {
        // fetch rejects only when no HTTP answer came back: that is "cannot reach", not "failed".
        const cause = (err as { cause?: { code?: string; message?: string } }).cause
        throw new UnreachableError(
          `cannot reach the gateway at ${base}: ${cause?.code ?? cause?.message ?? (err as Error).message}`,
        )
      }
      const text = await res.text()
      let parsed: unknown = text
      try {
        parsed = text === '' ? undefined : JSON.parse(text)
      } catch {
        // Not JSON (a proxy's page): keep the text for the message.
      }
      if (!res.ok) throw new FailedError(`${res.status}: ${errorMessage(parsed) ?? res.statusText}`)
      return parsed
    },
  }
}

/** The gateway's error bodies: {error: {message}} (openai style) or {detail}. */
function errorMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim().slice(0, 500) || undefined
  if (typeof body !== 'object' || body === null) return undefined
  const b = body as { error?: { message?: unknown } | string; detail?: unknown; message?: unknown }
  if (typeof b.error === 'object' && typeof b.error?.message === 'string') return b.error.message
  if (typeof b.error === 'string') return b.error
  if (typeof b.detail === 'string') return b.detail
  if (typeof b.message === 'string') return b.message
  return undefined
}

/** Plain aligned columns, header first; numbers right-aligned so they compare at a glance. */
const whole = new Intl.NumberFormat('en-US')
const fraction = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 4 })

/** A number for people: whole numbers grouped (12,345), others to four significant digits (0.0001589, not 0.00015889999999999999). */
export function formatNumber(n: number): string {
  return Number.isInteger(n) ? whole.format(n) : fraction.format(n)
}

/** Rows as aligned columns; numbers formatted for people (`--json` prints them raw). */
export function table(header: string[], rows: (string | number | boolean | null | undefined)[][]): string {
  const cells = rows.map((r) =>
    r.map((c) => (c === null || c === undefined ? '-' : typeof c === 'number' ? formatNumber(c) : String(c))),
  )
  const numeric = header.map((_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number'))
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)))
  const line = (r: string[]) =>
    r
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd()
  return [line(header), ...cells.map(line)].join('\n') + '\n'
}

export function positiveNumber(raw: string | undefined, flag: string, integer: boolean): number | undefined {
  if (raw === undefined) return undefined
  const n = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n)))
    throw new UsageError(`${flag} takes a ${integer ? 'whole ' : ''}number ≥ 0, not ${JSON.stringify(raw)}`)
  return n
}
