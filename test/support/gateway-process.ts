/**
 * A second Sluice process for tests of replicas: the real gateway on a loopback port, from
 * the config and pipelines folders a test already wrote, with its own data folder. Stores
 * come from the environment (SLUICE_REDIS_URL, SLUICE_POSTGRES_URL) or the config.
 *   node dist/test/support/gateway-process.js <configDir> <pipelinesDir> <dataDir>
 * Prints `READY <url>` when it serves; SIGTERM stops it gracefully.
 */
import { startGateway } from '../../bin/gateway.js'
import { createLogger } from '../../kernel/contract/log.js'

const [configDir, pipelinesDir, dataDir] = process.argv.slice(2)
const gateway = await startGateway({
  configDir,
  pipelinesDir,
  dataDir,
  server: {
    port: 0,
    watch: false,
    access_log: { enabled: true, to: 'access.log', flush_ms: 250, max_buffered_bytes: 8_388_608 },
  },
  log: createLogger({ level: 'warn' }),
  announce: () => undefined,
})
process.stdout.write(`READY ${gateway.url}\n`)
process.once('SIGTERM', () => void gateway.close().then(() => process.exit(0)))
