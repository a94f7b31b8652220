/**
 * CORS per pipeline (the pipeline file's `cors:`, compiled by protocols/http/cors.ts), answered
 * by the kernel: the preflight (OPTIONS with Origin and Access-Control-Request-Method) of a path
 * that a route of the pipeline serves, and the allow headers on the route's own replies, errors
 * included (a browser shows a client its 401 only when the error carries them). An origin that
 * is not allowed gets no allow headers at all, so the browser refuses the reply; the server never
 * refuses on Origin alone (CORS protects browsers' users, not the gateway: keys still do).
 */
import type { ParameterizedContext } from 'koa'
import type Router from '@koa/router'
import type { IncomingMessage, ServerResponse } from 'node:http'
import vary from 'vary'
import { GatewayError } from '../../contract/errors.js'
import type { CorsPolicy } from '../../../protocols/http/cors.js'

type Ctx = ParameterizedContext

/** Allow headers on a reply to `origin`; nothing when the request has no Origin or it is not allowed. */
export function applyCors(policy: CorsPolicy, req: IncomingMessage, res: ServerResponse): boolean {
  const origin = req.headers.origin ?? ''
  if (!policy.anyOrigin) vary(res, 'origin')
  if (origin === '' || !policy.allows(origin)) return false
  res.setHeader('access-control-allow-origin', policy.anyOrigin ? '*' : origin)
  if (policy.credentials) res.setHeader('access-control-allow-credentials', 'true')
  if (policy.expose) res.setHeader('access-control-expose-headers', policy.expose)
  return true
}

function preflight(policy: CorsPolicy, methods: readonly string[], ctx: Ctx): void {
  const asked = ctx.get('access-control-request-method')
  // Not a preflight: OPTIONS stays a method the route does not serve.
  if (ctx.get('origin') === '' || asked === '')
    throw new GatewayError(405, `method ${ctx.method} not allowed on ${ctx.path}`)
  ctx.vary('access-control-request-method')
  ctx.vary('access-control-request-headers')
  ctx.status = 204
  const allowed = policy.methods ?? methods
  if (!allowed.includes(asked.toUpperCase())) return void ctx.vary('origin')
  if (!applyCors(policy, ctx.req, ctx.res)) return
  ctx.set('access-control-allow-methods', allowed.join(', '))
  const headers = policy.headers ?? ctx.get('access-control-request-headers')
  if (headers !== '') ctx.set('access-control-allow-headers', headers)
  ctx.set('access-control-max-age', policy.maxAge)
}

/** What a preflight needs of a loaded route (structural: route.ts imports this file's types). */
interface CorsRoute {
  readonly cors?: CorsPolicy
  readonly internal: boolean
  readonly method?: string
  readonly path?: string
}

/** One OPTIONS handler per path that routes of a CORS pipeline serve, answering preflights. */
export function mountPreflights(router: Router, routes: Iterable<CorsRoute>): void {
  const byPath = new Map<string, { policy: CorsPolicy; methods: string[] }>()
  for (const r of routes) {
    if (!r.cors || r.internal || !r.method || r.path === undefined) continue
    const entry = byPath.get(r.path) ?? { policy: r.cors, methods: [] }
    entry.methods.push(r.method)
    byPath.set(r.path, entry)
  }
  for (const [path, { policy, methods }] of byPath)
    router.register(path, ['OPTIONS'], async (ctx) => preflight(policy, methods, ctx as unknown as Ctx))
}
