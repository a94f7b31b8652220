/**
 * `npm run bench -- fuzz --count N --seconds S --seed X [--concurrency C] [--max-bytes B]`: the
 * fuzz harness of `npm test` (test/fuzz/), run longer. Prints the inputs per door, the statuses
 * counted, the gateway's own 5xx and the heap before and after; each bad answer with what
 * replays it. Exits 1 when any answer was bad or the heap did not come back within 50 MiB.
 */
import { option } from './bench-setup.js'
import { describeFailure, fuzzGateway } from '../test/fuzz/campaign.js'
import { normalRequests, startFuzzGateway } from '../test/fuzz/fuzz-gateway.js'
import { reportTable } from '../test/fuzz/report-table.js'

const seed = option('seed', Math.floor(Math.random() * 2 ** 31))
const count = option('count', 2000)
const seconds = option('seconds', 300)
const concurrency = option('concurrency', 16)
const maxBytes = option('max-bytes', 1024 * 1024)

console.log(
  `fuzz: seed ${seed}, at most ${count} inputs per door, ${seconds} s, ${concurrency} at once, mutations up to ${maxBytes} bytes`,
)
const fz = await startFuzzGateway()
const report = await fuzzGateway(fz.gw, fz.keys, {
  seed,
  perDoor: count,
  seconds,
  concurrency,
  maxBytes,
  requestTimeoutMs: 30_000,
})
let servedAfter = 'yes'
await normalRequests(fz.gw, fz.keys).catch((err: Error) => (servedAfter = `no: ${err.message}`))
await fz.gw.close()

console.log(`\n${reportTable(report)}`)
console.log('(on /catalog a SOAP fault is HTTP 500, as SOAP 1.1 says: counted by its fault code)')
console.log(`ordinary requests served after the run: ${servedAfter}`)
for (const f of report.failures.slice(0, 20)) console.log(`  ${describeFailure(f, seed)}`)
const grown = report.after.heapUsed - report.before.heapUsed
process.exit(report.failures.length === 0 && grown < 50 * 1024 * 1024 && servedAfter === 'yes' ? 0 : 1)
