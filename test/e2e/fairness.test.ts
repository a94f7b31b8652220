/**
 * The fair queue end to end: a model of capacity 2 behind the real gateway, the simulator at a
 * realistic latency, real clients (the openai SDK). One tenant floods it with 40 concurrent
 * requests while another sends one request after another: the second's requests are not passed
 * by the flood (each takes the next free slot), the flood's are passed by the second's, and
 * while both have work each is given about half the slots (Jain's index of the two counts
 * ≥ 0.95). Counts and order from the usage records, never durations (bench/fairness.ts has
 * those). Then the same between two keys of one group.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type OpenAI from 'openai'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { keysFile, modelsWith } from '../support/deployment-files.js'
import { jainIndex, quantile, runFairnessScenario, type FairnessResult, type Tenant } from '../support/fairness.js'

const test = suite('e2e fair queue: two groups, two keys, capacity 2')
let gw: TestGateway

const tenant = (keyId: string): Tenant => ({ name: keyId, keyId, secret: `sk-${keyId}` })
const a1 = tenant('a1')
const a2 = tenant('a2')
const b1 = tenant('b1')

test.before(async () => {
  gw = await startTestGateway({
    simulatorLatency: { ttft_ms: 40, itl_ms: 4 },
    files: {
      'config/models.yaml': modelsWith({
        backends: { narrow: { url: 'embedded', capacity: 2 } },
        models: [
          {
            id: 'sim-narrow',
            model_type: 'chat',
            backend: 'narrow',
            served_name: 'sim-instruct-8b',
            reported_name: 'sim-narrow',
            context_window: 32768,
            prices: { prompt: 0.1, completion: 0.3 },
          },
        ],
      }),
      'config/keys.yaml': keysFile({ alpha: { weight: 1 }, beta: { weight: 1 } }, [
        { id: 'a1', group: 'alpha', secret: a1.secret },
        { id: 'a2', group: 'alpha', secret: a2.secret },
        { id: 'b1', group: 'beta', secret: b1.secret },
      ]),
    },
  })
})
test.after(async () => gw.close())

function report(label: string, r: FairnessResult): string {
  return `${label}: jain ${r.jain.toFixed(3)}; service ${r.medianServiceMs} ms; flood ${r.flood.requests} req, median wait ${r.flood.medianWaitMs} ms, ${Math.round(r.flood.tokensWhileBothBusy)} tok; steady ${r.steady.requests} req, median wait ${r.steady.medianWaitMs} ms (p90 ${r.steady.p90WaitMs}), ${Math.round(r.steady.tokensWhileBothBusy)} tok; window ${r.windowMs} ms; slots while both busy ${r.flood.grantsWhileBothBusy} / ${r.steady.grantsWhileBothBusy}; passed by (median, max) flood ${quantile(r.flood.passedBy, 0.5)}, ${Math.max(...r.flood.passedBy)}, steady ${quantile(r.steady.passedBy, 0.5)}, ${Math.max(...r.steady.passedBy)}`
}

function assertFair(r: FairnessResult): void {
  assert.ok(r.steady.requests >= 10, `the steady tenant got through ${r.steady.requests} requests`)
  // Without fairness the steady tenant would wait behind the whole flood (dozens passing it).
  assert.ok(
    quantile(r.steady.passedBy, 0.5) <= 1,
    `the steady tenant takes the next free slot: the flood passed its requests ${r.steady.passedBy.join(', ')} times`,
  )
  assert.ok(
    quantile(r.flood.passedBy, 0.5) >= 2,
    `the flood waits: the steady tenant passed its requests ${r.flood.passedBy.join(', ')} times`,
  )
  const jain = jainIndex([r.flood.grantsWhileBothBusy, r.steady.grantsWhileBothBusy])
  assert.ok(
    jain >= 0.95,
    `slots given while both had work, flood ${r.flood.grantsWhileBothBusy} / steady ${r.steady.grantsWhileBothBusy}: Jain's index ${jain.toFixed(3)} ≥ 0.95`,
  )
}

test('between groups: a flooding group does not starve a group sending one request at a time', async () => {
  const r = await runFairnessScenario(gw, {
    model: 'sim-narrow',
    flood: a1,
    steady: b1,
    floodRequests: 40,
    maxTokens: 8,
  })
  process.stdout.write(`\n  ${report('groups', r)}\n`)
  assertFair(r)
})

test('inside a group: the same between two keys', async () => {
  const r = await runFairnessScenario(gw, {
    model: 'sim-narrow',
    flood: a1,
    steady: a2,
    floodRequests: 40,
    maxTokens: 8,
  })
  process.stdout.write(`\n  ${report('keys', r)}\n`)
  assertFair(r)
})

test.run()

const timeout = suite('e2e fair queue: the wait limit')
let small: TestGateway
timeout.before(async () => {
  small = await startTestGateway({
    simulatorLatency: { ttft_ms: 0, itl_ms: 20 },
    server: { limits: { request_timeout_ms: 600_000, queue_timeout_ms: 150 } },
    files: {
      'config/models.yaml': modelsWith({
        backends: { single: { url: 'embedded', capacity: 1 } },
        models: [
          {
            id: 'sim-single',
            model_type: 'chat',
            backend: 'single',
            served_name: 'sim-instruct-8b',
            reported_name: 'sim-single',
          },
        ],
      }),
    },
  })
})
timeout.after(async () => small.close())

timeout(
  'a request that waits past queue_timeout_ms gets 503 with Retry-After: 5; the stream holding the slot goes on',
  async () => {
    const client = small.openai()
    const stream = await client.chat.completions.create({
      model: 'sim-single',
      messages: [{ role: 'user', content: 'a long one' }],
      stream: true,
      max_tokens: 30,
      ignore_eos: true,
    } as OpenAI.ChatCompletionCreateParamsStreaming)
    const res = await fetch(`${small.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}` },
      body: JSON.stringify({ model: 'sim-single', messages: [{ role: 'user', content: 'me too' }], max_tokens: 5 }),
    })
    assert.is(res.status, 503)
    assert.is(res.headers.get('retry-after'), '5')
    assert.equal(await res.json(), {
      error: { message: 'timed out waiting for model capacity', type: 'gateway_error' },
    })
    let chunks = 0
    for await (const _ of stream) chunks++
    assert.ok(chunks >= 30, 'the stream that held the slot finished')
    const after = await client.chat.completions.create({
      model: 'sim-single',
      messages: [{ role: 'user', content: 'now' }],
      max_tokens: 5,
    })
    assert.is(after.object, 'chat.completion', 'the slot was freed when the stream ended')
    const metrics = await (await fetch(`${small.url}/metrics`)).text()
    assert.match(metrics, /^sluice_queue_timeouts_total\{model="sim-single"\} 1$/m)
  },
)

timeout.run()
