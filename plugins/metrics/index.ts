/**
 * metrics: the process's Prometheus metrics in the text exposition format (version 0.0.4):
 * requests by route, status and model, request and time-to-first-token histograms, tokens in
 * and out (OpenTelemetry GenAI names), upstream errors, the fair queue, budget refusals,
 * usage-record writes, process and event-loop series. Labels name routes, models and pools
 * only, never keys or groups. Protected when server.yaml `metrics:` says so: a bearer token,
 * the metrics token or the admin key.
 */
import { GatewayError, definePlugin, reply } from '../../kernel/contract/index.js'
import { configSchema } from './schema.js'

const BEARER = /^Bearer\s+(\S+)\s*$/i

export default definePlugin({
  name: 'metrics',
  config: configSchema,
  setup(_config, kernel) {
    const access = kernel.metrics.access
    return {
      async request(ex) {
        if (access.protected) {
          const secret = BEARER.exec(ex.header('authorization') ?? '')?.[1]
          if (access.adminOnly && !kernel.keys.adminConfigured)
            throw new GatewayError(403, 'metrics need the admin key, which is not configured')
          if (secret === undefined)
            throw new GatewayError(401, 'missing bearer token', { headers: { 'www-authenticate': 'Bearer' } })
          if (!access.isMetricsToken(secret) && !kernel.keys.isAdmin(secret))
            throw new GatewayError(401, 'invalid metrics token', { headers: { 'www-authenticate': 'Bearer' } })
        }
        ex.reply = reply.text('text/plain; version=0.0.4; charset=utf-8', kernel.metrics.render())
      },
    }
  },
})
