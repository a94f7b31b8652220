/** `npm start`: serves the gateway on the embedded defaults (or what SLUICE_CONFIG names). */
import { startGateway } from '../kernel/gateway.js'
import { describeCause } from '../kernel/log.js'

try {
  const gateway = await startGateway({ signals: true })
  process.stdout.write(`Sluice is serving on ${gateway.url} (try: curl -H "Authorization: Bearer $SLUICE_DEMO_KEY" ${gateway.url}/v1/models)\n`)
} catch (err) {
  process.stderr.write(`sluice: cannot start: ${describeCause(err)}\n`)
  process.exit(1)
}
