/**
 * auth: the bearer key. Missing or malformed → 401 "missing bearer token"; unknown → 401
 * "invalid api key"; past its `expires_at` → 401 "api key expired"; switched off → 403 "api
 * key disabled"; a legacy key on a route the older gateway lacks → 404 {"detail":"Not Found"};
 * over its `requests_per_minute` → 429 with Retry-After. Sets `ex.principal`. Only the key's id
 * is logged. The request windows are the plugin's state (request-windows/): in memory, or in
 * Redis when the deployment has it, so the limit holds across replicas. A key without a limit
 * costs nothing more than the lookup.
 */
import { GatewayError, definePlugin, type KeyRecord } from '../../kernel/contract/index.js'
import { presentedToken } from '../../protocols/credentials/presented-token.js'
import { configSchema } from './schema.js'
import { openRequestWindows } from './request-windows/open-request-windows.js'

const unauthorized = (message: string) => new GatewayError(401, message, { headers: { 'www-authenticate': 'Bearer' } })

/** 429 for a key over its limit: Retry-After in whole seconds, when the window has room again. */
function overLimit(key: KeyRecord, waitMs: number): GatewayError {
  return new GatewayError(429, `request limit exceeded: ${key.requestsPerMinute} requests per minute`, {
    headers: { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) },
  })
}

export default definePlugin({
  name: 'auth',
  config: configSchema,
  provides: ['principal'],
  open: openRequestWindows,
  setup(config, kernel, windows) {
    const legacyNotFound = config.legacy === 'not-found'
    return {
      // Not async: nothing to do after next(), so its promise is handed back as it is.
      request(ex, next) {
        // In-process calls carry the caller's principal, already authenticated (and counted).
        if (ex.transport === 'internal' && ex.principal) return next()
        const token = presentedToken(ex, config.query_param, config.key_header)
        if (token === undefined) throw unauthorized('missing bearer token')
        const key = kernel.keys.lookup(token)
        if (!key) throw unauthorized('invalid api key')
        if (key.expiresAt !== undefined && kernel.now() >= key.expiresAt) throw unauthorized('api key expired')
        if (!key.enabled) throw new GatewayError(403, 'api key disabled')
        if (key.legacy && legacyNotFound) throw new GatewayError(404, 'Not Found', { rawBody: { detail: 'Not Found' } })
        ex.principal = { keyId: key.id, group: key.group, legacy: key.legacy }
        const limit = key.requestsPerMinute
        if (limit === undefined) return next()
        const wait = windows.take(key.id, limit, kernel.now())
        if (typeof wait === 'number') {
          if (wait > 0) throw overLimit(key, wait)
          return next()
        }
        return wait.then((ms) => {
          if (ms > 0) throw overLimit(key, ms)
          return next()
        })
      },
    }
  },
})
