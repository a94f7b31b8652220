import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import usageRecords from '../../../plugins/usage-records/index.js'
import { answeredWith, makeKernel, runPlugin, setupPlugin } from '../../../bin/testing/harness.js'
import { reply } from '../../../kernel/contract/reply.js'
import type { Exchange, Principal } from '../../../kernel/contract/exchange.js'
import type { Kernel } from '../../../kernel/contract/kernel.js'
import { GatewayError } from '../../../kernel/contract/errors.js'

const test = suite('plugin usage-records')
const NOW = Date.UTC(2026, 4, 14, 12)
const alice: Principal = { keyId: 'alice', group: 'research', legacy: false }
const SECRET_PROMPT = 'the launch code is swordfish-7731'
const body = { model: 'sim-chat', messages: [{ role: 'user', content: SECRET_PROMPT }] }
// sim-chat-instruct's prices: 0.10 per million prompt tokens, 0.30 per million reply tokens.
const onModel = (kernel: Kernel) => ({
  model: { requested: 'sim-chat', model: kernel.catalog.model('sim-chat-instruct')! },
})
const all = (kernel: Kernel) => kernel.records.list({ from: 0, to: NOW + 1e9 }, 100)

test('a request that reached a model: one record with every figure, no text', async () => {
  let clock = NOW
  const kernel = makeKernel({ now: () => clock })
  const run = await runPlugin(
    usageRecords,
    {},
    {
      kernel,
      body,
      principal: alice,
      state: {
        ...onModel(kernel),
        queue: { since: 0, waitedMs: 12, slot: { release: () => undefined }, pool: 'sim', promptEstimate: 40 },
      },
      next: (ex: Exchange) => {
        clock += 30
        ex.usage.firstTokenAt = clock
        answeredWith(ex, 'sim-chat-instruct', {
          prompt: 1000,
          completion: 2000,
          cached: 512,
          upstreamModel: 'sim-instruct-8b',
        })
        clock += 20
        ex.reply = reply.json({ choices: [{ message: { content: 'the reply text' } }] })
      },
    },
  )
  assert.ok(run.nextCalled)
  const records = await all(kernel)
  assert.is(records.length, 1)
  const r = records[0]!
  assert.equal(
    { ...r, value: Math.round(r.value * 1e9), charged: Math.round(r.charged * 1e9) },
    {
      at: NOW,
      requestId: run.ex.id,
      keyId: 'alice',
      group: 'research',
      route: 'test',
      modelRequested: 'sim-chat',
      model: 'sim-chat-instruct',
      upstreamModel: 'sim-instruct-8b',
      promptTokens: 1000,
      completionTokens: 2000,
      cachedTokens: 512,
      audioSeconds: 0,
      characters: 0,
      usageSource: 'reported',
      value: Math.round(((1000 * 0.1 + 2000 * 0.3) / 1e6) * 1e9),
      status: 200,
      outcome: 'done',
      queueMs: 12,
      ttftMs: 30,
      totalMs: 50,
      parentRequestId: null,
      charged: Math.round(((1000 * 0.1 + 2000 * 0.3) / 1e6) * 1e9),
      cached: false,
      fallbackFrom: null,
    },
  )
  assert.not.ok(JSON.stringify(records).includes('swordfish'), 'no prompt text')
  assert.not.ok(JSON.stringify(records).includes('reply text'), 'no reply text')
})

test('a request stopped before any model (no backend step): no record', async () => {
  const kernel = makeKernel({ now: () => NOW })
  await runPlugin(
    usageRecords,
    {},
    {
      kernel,
      body,
      principal: alice,
      state: onModel(kernel),
      next: () => {
        throw new GatewayError(403, 'api key term budget exhausted')
      },
    },
  )
  assert.is((await all(kernel)).length, 0)
})

test('a stream cut before its usage report: the prompt estimate and the pieces streamed, failed 502', async () => {
  const kernel = makeKernel({ now: () => NOW })
  const run = await runPlugin(
    usageRecords,
    {},
    {
      kernel,
      body: { ...body, stream: true },
      principal: alice,
      state: onModel(kernel),
      next: (ex) => {
        ex.usage.model = 'sim-chat-instruct'
        ex.usage.firstTokenAt = NOW
        ex.reply = reply.events(
          (async function* () {
            for (let i = 0; i < 5; i++) {
              ex.usage.streamed++
              yield { choices: [{ index: 0, delta: { content: ' w' } }] }
            }
            throw new GatewayError(502, 'upstream stream ended before it was complete')
          })(),
        )
      },
    },
  )
  assert.is(run.error?.status, 502)
  const [r] = await all(kernel)
  assert.equal(
    [r!.outcome, r!.status, r!.completionTokens, r!.promptTokens],
    ['failed', 502, 5, 8 + 8 + SECRET_PROMPT.length],
  )
  assert.is(r!.queueMs, null, 'no fair queue on this route')
})

test('an upstream error before any token: recorded with its status and zero tokens', async () => {
  const kernel = makeKernel({ now: () => NOW })
  await runPlugin(
    usageRecords,
    {},
    {
      kernel,
      body,
      principal: alice,
      state: onModel(kernel),
      next: (ex) => {
        ex.usage.model = 'sim-chat-instruct'
        throw new GatewayError(400, "This model's maximum context length is 8192 tokens")
      },
    },
  )
  const [r] = await all(kernel)
  assert.equal([r!.status, r!.outcome, r!.promptTokens, r!.completionTokens, r!.ttftMs], [400, 'failed', 0, 0, null])
})

test('in-process calls are recorded like client requests, with their caller', async () => {
  const kernel = makeKernel({ now: () => NOW })
  await runPlugin(
    usageRecords,
    {},
    {
      kernel,
      body,
      transport: 'internal',
      principal: alice,
      state: onModel(kernel),
      next: (ex) => {
        answeredWith(ex, 'sim-chat-instruct', { prompt: 3, completion: 1 })
        ex.reply = reply.json({})
      },
    },
  )
  const [r] = await all(kernel)
  assert.equal([r!.keyId, r!.promptTokens], ['alice', 3])
})

test('options are validated like the loader does', async () => {
  try {
    await setupPlugin(usageRecords, { tokens_per_image: -5 })
    assert.unreachable()
  } catch (err) {
    assert.match(String(err), /bad options/)
  }
})

test.run()
