import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { RunningSimulator } from '../../sim/index.js'
import { chatBody, eventually, metricsText, metricValue, postError, startTestSimulator } from './helpers.js'

const capacity = suite<{ sim: RunningSimulator }>('sim: capacity (max_running and the waiting line)')

capacity.before(async (ctx) => {
  ctx.sim = await startTestSimulator({ max_running: 1, max_waiting: 1 })
})
capacity.after(async (ctx) => {
  await ctx.sim.close()
})

const model = 'sim-instruct-8b'

/** A request that holds its running slot until aborted: it stalls far longer than any test runs. */
function holdSlot(sim: RunningSimulator, controller: AbortController): Promise<unknown> {
  return fetch(`${sim.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sim-stall-ms': '600000' },
    body: JSON.stringify(chatBody('hold the slot')),
    signal: controller.signal,
  }).then(
    (res) => res.text(),
    () => 'aborted',
  )
}

async function gauges(sim: RunningSimulator): Promise<{ running: number; waiting: number }> {
  const text = await metricsText(sim)
  return {
    running: metricValue(text, 'vllm:num_requests_running', model) ?? -1,
    waiting: metricValue(text, 'vllm:num_requests_waiting', model) ?? -1,
  }
}

capacity('a second request waits in line until the running one ends, then runs', async ({ sim }) => {
  const holder = new AbortController()
  const events: string[] = []
  const first = holdSlot(sim, holder).then(() => events.push('first ended'))
  await eventually(async () => (await gauges(sim)).running === 1, 'the first request runs')
  const second = fetch(`${sim.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(chatBody('wait for me')),
  }).then(async (res) => {
    events.push(`second answered ${res.status}`)
    return res.json()
  })
  await eventually(async () => (await gauges(sim)).waiting === 1, 'the second request waits')
  assert.equal(await gauges(sim), { running: 1, waiting: 1 })
  assert.equal(events, [], 'nothing has finished while the slot is held')
  holder.abort()
  await Promise.all([first, second])
  assert.equal(events, ['first ended', 'second answered 200'])
  assert.equal(await gauges(sim), { running: 0, waiting: 0 })
  const text = await metricsText(sim)
  assert.is(metricValue(text, 'vllm:request_success_total', model, 'finished_reason="abort"'), 1)
  assert.ok((metricValue(text, 'vllm:request_queue_time_seconds_count', model) ?? 0) >= 2)
})

capacity('a full waiting line answers 429 "Failed to enqueue request"', async ({ sim }) => {
  const holder = new AbortController()
  const waiter = new AbortController()
  const first = holdSlot(sim, holder)
  await eventually(async () => (await gauges(sim)).running === 1, 'the first request runs')
  const second = holdSlot(sim, waiter)
  await eventually(async () => (await gauges(sim)).waiting === 1, 'the second request waits')
  const third = await postError(sim, '/v1/chat/completions', chatBody('no room'))
  assert.is(third.status, 429)
  assert.match(third.body.error.message, /^Failed to enqueue request/)
  assert.is(third.body.error.type, 'RateLimitError')
  // A client that gives up while waiting leaves the line.
  waiter.abort()
  await second
  await eventually(async () => (await gauges(sim)).waiting === 0, 'the waiter left the line')
  holder.abort()
  await first
  await eventually(async () => (await gauges(sim)).running === 0, 'the slot is free')
})

capacity.run()
