/**
 * admin-auth: the admin API's own key (server.yaml `admin.key_hash`, or SLUICE_ADMIN_KEY),
 * never an API key of a tenant. Missing → 401 "missing bearer token"; wrong → 401 "invalid
 * admin key"; no admin key configured → 403 "admin api is not configured". Compared by
 * SHA-256 digest in constant time.
 */
import { GatewayError, definePlugin } from '../../kernel/contract/index.js'
import { configSchema } from './schema.js'

declare module '../../kernel/contract/index.js' {
  interface ExchangeState {
    admin?: { authenticated: true }
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i

export default definePlugin({
  name: 'admin-auth',
  config: configSchema,
  provides: ['admin'],
  setup(_config, kernel) {
    return {
      async request(ex, next) {
        const match = BEARER.exec(ex.header('authorization') ?? '')
        if (!kernel.keys.adminConfigured) throw new GatewayError(403, 'admin api is not configured')
        if (!match) throw new GatewayError(401, 'missing bearer token', { headers: { 'www-authenticate': 'Bearer' } })
        if (!kernel.keys.isAdmin(match[1]!))
          throw new GatewayError(401, 'invalid admin key', { headers: { 'www-authenticate': 'Bearer' } })
        ex.state.admin = { authenticated: true }
        await next()
      },
    }
  },
})
