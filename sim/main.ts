/**
 * Standalone simulator: `npm run sim -- [--config file] [--port 8000] [--host 127.0.0.1]`.
 * Without --config it serves config/simulator.yaml of this repository.
 */
import { parseArgs } from 'node:util'
import { defaultSimConfigFile, loadSimConfig, startSimulator } from './index.js'

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      config: { type: 'string', default: defaultSimConfigFile },
      port: { type: 'string', default: '8000' },
      host: { type: 'string', default: '127.0.0.1' },
      help: { type: 'boolean', default: false },
    },
  })
  if (values.help) {
    process.stdout.write('usage: node dist/sim/main.js [--config file] [--port 8000] [--host 127.0.0.1]\n')
    return
  }
  const port = Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: not a port number: ${values.port}`)
  const config = loadSimConfig(values.config)
  const sim = await startSimulator(config, { host: values.host, port })
  process.stdout.write(`sluice-sim listening on ${sim.url} (models: ${config.models.map((m) => m.name).join(', ')})\n`)
  const stop = (): void => {
    sim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

main().catch((err: unknown) => {
  process.stderr.write(`sluice-sim: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exit(1)
})
