import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fairQueue from '../../../plugins/fair-queue/index.js'
import {
  answeredWith,
  configDirWith,
  makeKernel,
  runPlugin,
  setupPlugin,
  type Run,
} from '../../../bin/testing/harness.js'
import { reply } from '../../../kernel/contract/reply.js'
import type { Exchange, Principal } from '../../../kernel/contract/exchange.js'
import type { Kernel } from '../../../kernel/contract/kernel.js'

const test = suite('plugin fair-queue')

const models = `default_model: m
backends: { one: { url: embedded, capacity: 1 } }
models:
  - { id: m, model_type: chat, backend: one }
`
const server = `pipelines: [gateway.yaml]
limits: { request_timeout_ms: 600000, queue_timeout_ms: 150 }
`
const configDir = configDirWith({ 'models.yaml': models, 'server.yaml': server })
const fresh = () => makeKernel({ configDir })
const alice: Principal = { keyId: 'demo', group: 'demo', legacy: false }
const onModel = (kernel: Kernel) => ({ model: { requested: 'm', model: kernel.catalog.model('m')! } })
const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }] }
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A gate the fake next step waits on, so a request can hold its slot as long as a test likes. */
function gate() {
  let open: () => void = () => undefined
  const opened = new Promise<void>((r) => (open = r))
  return { open, opened }
}

test('a request takes a slot of its backend pool and frees it when its reply ended', async () => {
  const kernel = fresh()
  const run = await runPlugin(fairQueue, {}, { kernel, body, principal: alice, state: onModel(kernel) })
  assert.ok(run.nextCalled)
  assert.is(run.ex.state.queue?.pool, 'one')
  assert.type(run.ex.state.queue?.waitedMs, 'number')
  assert.equal(kernel.load.pools(), [{ pool: 'one', model: 'm', waiting: 0, running: 0 }])
})

test('at capacity the next request waits until the first one finishes', async () => {
  const kernel = fresh()
  const g = gate()
  const order: string[] = []
  const first = runPlugin(
    fairQueue,
    {},
    {
      kernel,
      body,
      principal: alice,
      state: onModel(kernel),
      next: async () => {
        order.push('first runs')
        await g.opened
        order.push('first ends')
      },
    },
  )
  await sleep(5)
  const second = runPlugin(
    fairQueue,
    {},
    { kernel, body, principal: alice, state: onModel(kernel), next: () => void order.push('second runs') },
  )
  await sleep(20)
  assert.equal(kernel.load.pools(), [{ pool: 'one', model: 'm', waiting: 1, running: 1 }])
  g.open()
  await Promise.all([first, second])
  assert.equal(order, ['first runs', 'first ends', 'second runs'])
  assert.ok((await second).ex.state.queue!.waitedMs >= 15)
})

test('a streamed reply keeps its slot until the stream ends', async () => {
  const kernel = fresh()
  const g = gate()
  let secondRan = false
  const streaming = runPlugin(
    fairQueue,
    {},
    {
      kernel,
      body,
      principal: alice,
      state: onModel(kernel),
      next: (ex) => {
        ex.reply = reply.events(
          (async function* () {
            yield { choices: [{ index: 0, delta: { content: 'a' } }] }
            await g.opened
            yield { choices: [{ index: 0, delta: { content: 'b' } }] }
          })(),
        )
      },
    },
  )
  await sleep(5)
  const second = runPlugin(
    fairQueue,
    {},
    { kernel, body, principal: alice, state: onModel(kernel), next: () => void (secondRan = true) },
  )
  await sleep(30)
  assert.not.ok(secondRan, 'the stream still holds the slot')
  g.open()
  await Promise.all([streaming, second])
  assert.ok(secondRan)
})

test('a slot is freed when the reply failed, too', async () => {
  const kernel = fresh()
  const failed = await runPlugin(
    fairQueue,
    {},
    {
      kernel,
      body,
      principal: alice,
      state: onModel(kernel),
      next: () => {
        throw new Error('upstream down')
      },
    },
  )
  assert.ok(failed.error)
  const after = await runPlugin(fairQueue, {}, { kernel, body, principal: alice, state: onModel(kernel) })
  assert.ok(after.nextCalled, 'the pool is free again')
})

test('a wait past limits.queue_timeout_ms: 503 "timed out waiting for model capacity" with Retry-After: 5', async () => {
  const kernel = fresh()
  const g = gate()
  const holder = runPlugin(
    fairQueue,
    {},
    { kernel, body, principal: alice, state: onModel(kernel), next: () => g.opened },
  )
  await sleep(5)
  const late: Run = await runPlugin(fairQueue, {}, { kernel, body, principal: alice, state: onModel(kernel) })
  assert.is(late.error?.status, 503)
  assert.is(late.error?.message, 'timed out waiting for model capacity')
  assert.equal(late.error?.headers, { 'retry-after': '5' })
  assert.not.ok(late.nextCalled)
  assert.match(kernel.metrics.render(), /sluice_queue_timeouts_total\{model="m"\} 1/)
  g.open()
  await holder
})

test('waiting counts toward the total time limit: the deadline ends the wait with its 504', async () => {
  const kernel = makeKernel({
    configDir: configDirWith({
      'models.yaml': models,
      'server.yaml': server.replace('queue_timeout_ms: 150', 'queue_timeout_ms: 60000'),
    }),
  })
  const g = gate()
  const holder = runPlugin(
    fairQueue,
    {},
    { kernel, body, principal: alice, state: onModel(kernel), next: () => g.opened },
  )
  await sleep(5)
  const started = Date.now()
  const late = await runPlugin(fairQueue, {}, { kernel, body, principal: alice, state: onModel(kernel), timeoutMs: 80 })
  assert.is(late.error?.status, 504)
  assert.ok(Date.now() - started < 1000, 'ended by the deadline, not the queue timeout')
  g.open()
  await holder
})

test('the service charged is corrected to the usage reported when the reply ends', async () => {
  const kernel = fresh()
  const used = (ex: Exchange) => {
    answeredWith(ex, 'm', { prompt: 10, completion: 90 })
    ex.reply = reply.json({})
  }
  const run = await runPlugin(
    fairQueue,
    { completion_weight: 2 },
    { kernel, body, principal: alice, state: onModel(kernel), next: used },
  )
  assert.ok(run.nextCalled)
})

test('metrics: waiting and running per model, wait time, capacity', async () => {
  const kernel = fresh()
  await runPlugin(fairQueue, {}, { kernel, body, principal: alice, state: onModel(kernel) })
  const text = kernel.metrics.render()
  assert.match(text, /# TYPE sluice_queue_waiting gauge/)
  assert.match(text, /sluice_queue_running\{model="m",pool="one"\} 0/)
  assert.match(text, /sluice_queue_wait_seconds_count\{model="m"\} 1/)
  assert.match(text, /sluice_queue_capacity\{pool="one"\} 1/)
})

test('options are validated like the loader does', async () => {
  for (const bad of [{ anticipation_ms: -1 }, { anticipation_ms: 5000 }, { prompt_weight: 'x' }, { extra: 1 }]) {
    try {
      await setupPlugin(fairQueue, bad, fresh())
      assert.unreachable(`accepted ${JSON.stringify(bad)}`)
    } catch (err) {
      assert.match(String(err), /bad options/)
    }
  }
})

test.run()
