/**
 * auth: the bearer key. Missing or malformed → 401 "missing bearer token"; unknown → 401
 * "invalid api key"; switched off → 403 "api key disabled"; a legacy key on a route the older
 * gateway lacks → 404 {"detail":"Not Found"}. Sets `ex.principal`. Only the key's id is logged.
 */
import { GatewayError, definePlugin, presentedToken } from '../../kernel/contract/index.js'
import { configSchema } from './schema.js'

export default definePlugin({
  name: 'auth',
  config: configSchema,
  provides: ['principal'],
  setup(config, kernel) {
    const legacyNotFound = config.legacy === 'not-found'
    return {
      // Not async: nothing to do after next(), so its promise is handed back as it is.
      request(ex, next) {
        // In-process calls carry the caller's principal, already authenticated.
        if (ex.transport === 'internal' && ex.principal) return next()
        const token = presentedToken(ex, config.query_param, config.key_header)
        if (token === undefined)
          throw new GatewayError(401, 'missing bearer token', { headers: { 'www-authenticate': 'Bearer' } })
        const key = kernel.keys.lookup(token)
        if (!key) throw new GatewayError(401, 'invalid api key', { headers: { 'www-authenticate': 'Bearer' } })
        if (!key.enabled) throw new GatewayError(403, 'api key disabled')
        if (key.legacy && legacyNotFound) throw new GatewayError(404, 'Not Found', { rawBody: { detail: 'Not Found' } })
        ex.principal = { keyId: key.id, group: key.group, legacy: key.legacy }
        return next()
      },
    }
  },
})
