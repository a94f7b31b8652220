import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import adminModels from '../../../plugins/admin-models/index.js'
import fairQueue from '../../../plugins/fair-queue/index.js'
import { makeKernel, runPlugin, stateOf } from '../../../bin/testing/harness.js'

const test = suite('plugin admin-models')

interface View {
  models: {
    id: string
    status: string
    retired: boolean
    retire_at: string | null
    replacement: string | null
    boons: string[]
    capabilities: string[]
  }[]
  backends: {
    name: string
    capacity: number
    waiting: number
    running: number
    models: { model: string; waiting: number; running: number }[]
  }[]
}

test('the catalog with retirement: retired models listed and marked, deprecated ones with their replacement', async () => {
  const run = await runPlugin(adminModels, {}, { state: { admin: { authenticated: true } } })
  const body = (run.reply as { body: View }).body
  const byId = new Map(body.models.map((m) => [m.id, m]))
  assert.equal([byId.get('sim-retired-chat')?.retired, byId.get('sim-retired-chat')?.status], [true, 'deprecated'])
  assert.equal(
    [byId.get('sim-legacy-chat')?.retired, byId.get('sim-legacy-chat')?.replacement],
    [false, 'sim-chat-instruct'],
  )
  assert.equal(byId.get('sim-text-boon')?.boons, ['vision'])
  assert.ok(byId.get('sim-vision')?.capabilities.includes('vision'))
})

test('the live queue: requests running and waiting per backend, as the fair queue holds them now', async () => {
  const kernel = makeKernel()
  // The fair queue as the gateway opens it, reporting to kernel.load.
  const { queues } = await stateOf(fairQueue, kernel)
  const abort = new AbortController()
  const ask = () =>
    queues.acquire({
      pool: 'sim',
      capacity: 1,
      model: 'sim-chat-instruct',
      group: 'demo',
      groupWeight: 1,
      key: 'k',
      cost: 1,
      timeoutMs: 60_000,
      signal: abort.signal,
      anticipationMs: 0,
    })
  const first = await ask()
  const second = ask()
  const body = (
    (await runPlugin(adminModels, {}, { kernel, state: { admin: { authenticated: true } } })).reply as { body: View }
  ).body
  const sim = body.backends.find((b) => b.name === 'sim')!
  assert.equal([sim.running, sim.waiting], [1, 1])
  assert.equal(sim.models, [{ model: 'sim-chat-instruct', waiting: 1, running: 1 }])
  assert.ok(body.backends.filter((b) => b.name !== 'sim').every((b) => b.running === 0 && b.waiting === 0))
  abort.abort()
  await second
  if (first.kind === 'granted') first.slot.release(0)
  const after = (
    (await runPlugin(adminModels, {}, { kernel, state: { admin: { authenticated: true } } })).reply as { body: View }
  ).body
  assert.equal(
    [after.backends.find((b) => b.name === 'sim')!.running, after.backends.find((b) => b.name === 'sim')!.waiting],
    [0, 0],
  )
})

test.run()
