/**
 * portal-auth: the operator portal's sign-in. The admin key (the same check as `admin-auth`) is
 * traded once for a session: an HttpOnly, SameSite=Strict cookie scoped to /portal, whose id is
 * kept only hashed, with an absolute expiry. Every later request carries the cookie instead of
 * the key, and every state-changing request (anything but GET and HEAD) also carries the
 * session's CSRF token in `x-csrf-token`: a page of another site can make the browser send the
 * cookie (not with SameSite=Strict, but older browsers and same-site subdomains) yet cannot read
 * the token. A passed check fills the `admin` slot, so the admin plugins run unchanged behind it.
 */
import { GatewayError, definePlugin, reply, type Exchange } from '../../kernel/contract/index.js'
import { configSchema } from './schema.js'
import { PortalSessions, sameSecret, type PortalSession } from './sessions.js'
import type { PortalSessionView } from '../../schemas/portal-response.schema.js'

declare module '../../kernel/contract/index.js' {
  interface ExchangeState {
    admin?: { authenticated: true }
  }
}

const COOKIE = 'sluice_portal'
const SAFE_METHODS = new Set(['GET', 'HEAD'])

function cookieValue(ex: Exchange): string | undefined {
  for (const part of (ex.header('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === COOKIE) return part.slice(eq + 1).trim()
  }
  return undefined
}

const noSession = () => new GatewayError(401, 'not signed in to the portal')

export default definePlugin({
  name: 'portal-auth',
  config: configSchema,
  provides: ['admin'],
  // One session table per process: a reload signs nobody out.
  open: () => new PortalSessions(),
  setup(config, kernel, sessions) {
    const cookie = (value: string, maxAgeSeconds: number) =>
      `${COOKIE}=${value}; Path=/portal; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${config.secure_cookie ? '; Secure' : ''}`
    const live = (ex: Exchange): { id: string; session: PortalSession } => {
      const id = cookieValue(ex)
      const session = id === undefined ? undefined : sessions.find(id, kernel.now())
      if (id === undefined || !session) throw noSession()
      return { id, session }
    }
    const view = (s: PortalSession): PortalSessionView => ({
      csrf_token: s.csrfToken,
      expires_at: new Date(s.expiresAt).toISOString(),
    })

    const actions = {
      async session(ex: Exchange, next: () => Promise<void>) {
        const { session } = live(ex)
        if (!SAFE_METHODS.has(ex.method) && !sameSecret(ex.header('x-csrf-token') ?? '', session.csrfToken))
          throw new GatewayError(403, 'missing or invalid CSRF token: send the x-csrf-token header returned at sign-in')
        ex.state.admin = { authenticated: true }
        await next()
      },
      async 'sign-in'(ex: Exchange) {
        if (!kernel.keys.adminConfigured) throw new GatewayError(403, 'admin api is not configured')
        const key = (ex.body as { admin_key?: unknown } | undefined)?.admin_key
        if (typeof key !== 'string' || key === '')
          throw new GatewayError(400, 'invalid request: admin_key is required', { code: 'invalid_request' })
        if (!kernel.keys.isAdmin(key)) throw new GatewayError(401, 'invalid admin key')
        const ttlMs = config.ttl_minutes * 60_000
        const opened = sessions.open(ttlMs, kernel.now(), config.max_sessions)
        ex.headers.set('set-cookie', cookie(opened.id, ttlMs / 1000))
        ex.reply = reply.json(view(opened.session))
      },
      async 'sign-out'(ex: Exchange) {
        const { id, session } = live(ex)
        if (!sameSecret(ex.header('x-csrf-token') ?? '', session.csrfToken))
          throw new GatewayError(403, 'missing or invalid CSRF token: send the x-csrf-token header returned at sign-in')
        sessions.end(id)
        ex.headers.set('set-cookie', cookie('', 0))
        ex.reply = reply.json({ signed_out: true })
      },
      async status(ex: Exchange) {
        ex.reply = reply.json(view(live(ex).session))
      },
    }
    const run = actions[config.action]
    return {
      async request(ex, next) {
        await run(ex, next)
        // Session tokens must not linger in intermediaries' caches.
        ex.headers.set('cache-control', 'no-store')
      },
    }
  },
})
