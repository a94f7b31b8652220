/**
 * `model: auto` picks by load (spec rule 1): two chat models on two backend pools of capacity
 * 1; while slow streams hold the first pool's slot and wait behind it, auto sends requests to
 * the idle one. Real gateway, simulator, openai SDK.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type OpenAI from 'openai'
import { dump } from 'js-yaml'
import { startTestGateway, type TestGateway } from '../support/gateway.js'
import { modelsWith } from '../support/deployment-files.js'

const test = suite('e2e auto: a saturated pool loses to an idle one')
let gw: TestGateway
let client: OpenAI

test.before(async () => {
  gw = await startTestGateway({
    files: {
      'config/models.yaml': modelsWith({
        // forward_headers: the slow streams ask the simulator for a late first token.
        backends: {
          first: { url: 'embedded', capacity: 1, forward_headers: ['x-sim-ttft-ms'] },
          second: { url: 'embedded', capacity: 1 },
        },
        models: [
          {
            id: 'first-chat',
            model_type: 'chat',
            backend: 'first',
            served_name: 'sim-instruct-8b',
            reported_name: 'first-chat',
            context_window: 32768,
          },
          {
            id: 'second-chat',
            model_type: 'chat',
            backend: 'second',
            served_name: 'sim-text-3b-plain',
            reported_name: 'second-chat',
            context_window: 8192,
          },
        ],
      }),
      // The demo key's group may use only these two, so auto chooses between them.
      'config/keys.yaml': dump({
        groups: { demo: { models: ['first-chat', 'second-chat'] } },
        keys: [{ id: 'demo', group: 'demo', demo: true }],
      }),
    },
  })
  client = gw.openai()
})
test.after(async () => gw.close())

const ask = () =>
  client.chat.completions
    .create({ model: 'auto', messages: [{ role: 'user', content: 'hi' }], max_tokens: 3 })
    .withResponse()

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000
  while (!check()) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting until ${what}; queues: ${JSON.stringify(gw.generation().load.pools())}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

test('idle: the first listed model; first pool saturated: the idle one; free again: the first', async () => {
  const idle = await ask()
  assert.is(idle.response.headers.get('x-gateway-model-auto'), 'first-chat', 'all idle: the operator’s order')

  // Two slow streams on the first pool: one holds its only slot, one waits behind it.
  const abort = new AbortController()
  const slow = [0, 1].map(() =>
    client.chat.completions
      .create(
        { model: 'first-chat', messages: [{ role: 'user', content: 'slowly' }], stream: true, max_tokens: 5 },
        { headers: { 'x-sim-ttft-ms': '5000' }, signal: abort.signal },
      )
      .then(async (stream) => {
        for await (const _ of stream);
      })
      // Aborted by the test once it has seen what it needs.
      .catch(() => undefined),
  )
  const queues = () =>
    gw
      .generation()
      .load.pools()
      .filter((l) => l.pool === 'first')
  await until(() => queues().some((l) => l.running === 1 && l.waiting === 1), 'the first pool is saturated')

  const busy = await ask()
  assert.is(busy.response.headers.get('x-gateway-model-auto'), 'second-chat', 'the idle pool wins')
  assert.is(busy.data.model, 'sim-text-3b-plain', 'and its server answered')
  assert.ok(busy.data.choices[0]!.message.content!.length > 0)

  abort.abort()
  await Promise.all(slow)
  await until(() => queues().every((l) => l.running === 0 && l.waiting === 0), 'the first pool is free')
  const after = await ask()
  assert.is(after.response.headers.get('x-gateway-model-auto'), 'first-chat', 'free again: back to the first')
})

test.run()
