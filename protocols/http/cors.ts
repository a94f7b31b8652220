/**
 * Which origins a pipeline's `cors:` allows, and what its replies say to them, compiled once at
 * load. Origins: exact (`https://app.example.com`), a port wildcard (`http://localhost:*`), a
 * subdomain wildcard (`https://*.example.com`), or `*`. The kernel answers preflights and sets
 * the allow headers with it (kernel/transports/cors/cors.ts).
 */
import type { PipelineFile } from '../../schemas/pipeline.schema.js'

export type CorsConfig = NonNullable<PipelineFile['cors']>

export interface CorsPolicy {
  allows(origin: string): boolean
  /** `*` for any origin without credentials; else the origin itself is echoed (and `Vary: Origin`). */
  readonly anyOrigin: boolean
  readonly credentials: boolean
  /** Access-Control-Allow-Headers: configured, or undefined to reflect what the browser asks for. */
  readonly headers?: string
  readonly expose?: string
  readonly maxAge: string
  /** Configured methods, or undefined for the methods of the path's routes. */
  readonly methods?: readonly string[]
}

function originPattern(entry: string): RegExp {
  const escape = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')
  const m = /^(https?):\/\/(\*\.)?([^/:]+)(?::(\d+|\*))?$/.exec(entry)!
  const [, scheme, sub, host, port] = m
  const portPart = port === '*' ? '(?::\\d{1,5})?' : port ? `:${port}` : ''
  return new RegExp(`^${scheme}://${sub ? '(?:[a-z0-9-]+\\.)+' : ''}${escape(host!.toLowerCase())}${portPart}$`)
}

export function corsPolicy(config: CorsConfig): CorsPolicy {
  const anyOrigin = config.origins.includes('*')
  const patterns = config.origins.filter((o) => o !== '*').map(originPattern)
  return {
    allows: (origin) => anyOrigin || patterns.some((p) => p.test(origin.toLowerCase())),
    anyOrigin: anyOrigin && !config.credentials,
    credentials: config.credentials ?? false,
    headers: config.headers?.join(', '),
    expose: config.expose_headers?.length ? config.expose_headers.join(', ') : undefined,
    maxAge: String(config.max_age ?? 600),
    methods: config.methods,
  }
}
