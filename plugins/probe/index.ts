/**
 * probe: the Kubernetes probes. `live` answers 200 at once (no I/O: a liveness probe that
 * touched the stores would restart a healthy process during a database outage). `ready`
 * answers 200 only when the stores, Redis (when configured) and at least one backend answer,
 * else 503 with every check, so that a load balancer stops sending traffic. That a route
 * runs at all means its pipelines are loaded: the request is served by a generation.
 */
import { definePlugin, reply } from '../../kernel/contract/index.js'
import { configSchema } from './schema.js'
import { readiness } from './checks.js'

export default definePlugin({
  name: 'probe',
  config: configSchema,
  setup(config, kernel) {
    return {
      async request(ex) {
        if (config.kind === 'live') {
          ex.reply = reply.json({ status: 'ok' })
          return
        }
        const checks = await readiness(kernel)
        const ready = Object.values(checks).every((c) => c.ok)
        ex.reply = ready ? reply.json({ status: 'ok', checks }) : reply.json({ status: 'unready', checks }, 503)
      },
    }
  },
})
