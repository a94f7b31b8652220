/**
 * The gateway as bench/chat runs it: its own process, its config folder given, the embedded
 * simulator off (the backend points at a separate simulator process).
 *   node dist/bench/gateway-process.js <configDir>
 */
import { startGateway } from '../bin/gateway.js'
import { createLogger } from '../kernel/contract/log.js'

const configDir = process.argv[2]!
const gateway = await startGateway({
  configDir,
  server: { port: 0, watch: false },
  log: createLogger({ level: 'warn' }),
  announce: () => undefined,
})
process.stdout.write(`READY ${gateway.url}\n`)
process.on('SIGTERM', () => void gateway.close().then(() => process.exit(0)))
