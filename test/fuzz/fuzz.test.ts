/**
 * The fuzz harness in `npm test` (issue 11), on a short budget: malformed JSON, multipart, XML,
 * audio headers and hostile paths at every route of the shipped pipelines, with a valid key, no
 * key and a bad one. Every answer is a success or a 4xx of the documented shape (a SOAP
 * `soap:Client` fault on /catalog), never a 5xx of the gateway's own, never a hang; the process
 * survives, its heap comes back to its level, and ordinary requests are served afterwards.
 * The seed is printed; `FUZZ_SEED=<n>` replays a run, `FUZZ_ONLY=<door>#<n>` one input, and
 * `FUZZ_REPORT=1` prints the counts.
 * Longer runs: `npm run bench -- fuzz --count N --seconds S --seed X`.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { describeFailure, fuzzGateway, type FuzzReport } from './campaign.js'
import { normalRequests, startFuzzGateway, type FuzzGateway } from './fuzz-gateway.js'
import { fuzzSeed } from './random.js'
import { mib } from './heap.js'
import { reportTable } from './report-table.js'

const test = suite('fuzz: hostile input at every door of every route')
const seed = fuzzSeed()
let fz: FuzzGateway
let report: FuzzReport

test.before(async () => {
  console.log(`  fuzz: FUZZ_SEED=${seed}`)
  fz = await startFuzzGateway()
  report = await fuzzGateway(fz.gw, fz.keys, {
    seed,
    perDoor: 100,
    seconds: 8,
    concurrency: 8,
    maxBytes: 256 * 1024,
    requestTimeoutMs: 10_000,
    only: process.env.FUZZ_ONLY || undefined,
  })
  if (process.env.FUZZ_REPORT) console.log(`\n${reportTable(report)}`)
})
test.after(async () => fz?.gw.close())

test('every door sent its inputs, the WebSocket door too', () => {
  assert.ok(report.doors.websocket, 'the WebSocket door ran')
  for (const [name, tally] of Object.entries(report.doors)) {
    if (!process.env.FUZZ_ONLY)
      assert.ok(tally.inputs >= 20, `FUZZ_SEED=${seed}: door ${name} sent only ${tally.inputs} inputs`)
  }
})

test('every answer is a success or a documented 4xx; no 5xx of the gateway, no hang', () => {
  const lines = report.failures.slice(0, 10).map((f) => describeFailure(f, seed))
  const more = report.failures.length > 10 ? `\n… and ${report.failures.length - 10} more` : ''
  assert.is(
    report.failures.length,
    0,
    `${report.failures.length} bad answers (${report.gateway5xx} gateway 5xx):\n${lines.join('\n')}${more}\nlast gateway errors:\n${fz.recentErrors().slice(-5).join('')}`,
  )
  assert.is(report.gateway5xx, 0)
})

test('the heap is back near its level after the run', () => {
  const grown = report.after.heapUsed - report.before.heapUsed
  assert.ok(
    grown < 50 * 1024 * 1024,
    `FUZZ_SEED=${seed}: heap ${mib(report.before.heapUsed)} before, ${mib(report.after.heapUsed)} after (collected: ${report.after.collected})`,
  )
})

test('ordinary requests are served after the run', async () => {
  await normalRequests(fz.gw, fz.keys)
})

test.run()
