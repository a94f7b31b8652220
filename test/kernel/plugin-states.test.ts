/**
 * A plugin's `open` state on the real gateway: opened once per process at the plugin's first
 * load, handed to the setups of every later load (a hot reload opens nothing again), closed once
 * at shutdown. An open that fails refuses that load with OPEN_FAILED; the next load tries again.
 * And the harness: one state per kernel, closed with the run of a kernel it made.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { definePlugin, type AnyPlugin } from '../../kernel/contract/plugin.js'
import { reply } from '../../kernel/contract/reply.js'
import { defaultConfigDir } from '../../kernel/contract/paths.js'
import { makeKernel, runPlugin, stateOf } from '../../bin/testing/harness.js'
import { startTestGateway } from '../support/gateway.js'

const test = suite('kernel: plugin states live as long as the process')

const emptySchema = { type: 'object', additionalProperties: false, properties: {} } as const
const events: string[] = []

/** Counts the requests it served in its state, and says when it opens and closes. */
const counter = definePlugin({
  name: 'test-counter',
  config: emptySchema,
  async open(kernel) {
    events.push('open')
    return {
      served: 0,
      openedAt: kernel.now(),
      close() {
        events.push('close')
      },
    }
  },
  setup: (_config, _kernel, state) => ({
    async request(ex) {
      ex.reply = reply.json({ served: ++state.served })
    },
  }),
})

/** Its open fails the first time it is asked. */
let flakyOpens = 0
const flaky = definePlugin({
  name: 'test-flaky',
  config: emptySchema,
  open() {
    if (++flakyOpens === 1) throw new Error('the store is not there yet')
    return { opened: flakyOpens }
  },
  setup: (_config, _kernel, state) => ({
    async request(ex) {
      ex.reply = reply.json(state)
    },
  }),
})

const pipeline = (routes: string) => `pipeline: states
prefix: /s
routes:
${routes}`
const counted = '  - { id: s-count, http: GET /count, steps: [test-counter] }\n'
const flakyRoute = '  - { id: s-flaky, http: GET /flaky, steps: [test-flaky] }\n'
const server = fs
  .readFileSync(path.join(defaultConfigDir, 'server.yaml'), 'utf8')
  .replace(/^pipelines: \[/m, 'pipelines: [states.yaml, ')

test('opened at the first load, kept by a reload, closed once at shutdown', async () => {
  events.length = 0
  const gw = await startTestGateway({
    plugins: [counter, flaky] as AnyPlugin[],
    files: { 'pipelines/states.yaml': pipeline(counted), 'config/server.yaml': server },
  })
  try {
    const count = async () => ((await (await fetch(`${gw.url}/s/count`)).json()) as { served: number }).served
    assert.is(await count(), 1)
    assert.is(await count(), 2)
    assert.equal(events, ['open'])
    assert.is(gw.plugins.get(flaky), undefined, 'a plugin no route uses is not opened')

    // A route whose plugin cannot open: that reload is refused, the old set serves on.
    gw.write('pipelines', 'states.yaml', pipeline(counted + flakyRoute))
    assert.is(await gw.reload(), false)
    assert.ok(
      gw.logs.some(
        (l) => l.includes('reload refused') && l.includes('OPEN_FAILED') && l.includes('the store is not there yet'),
      ),
    )
    assert.is(await count(), 3, 'the same state serves on')
    // The next load opens it again, and the counter's state is still the one opened first.
    assert.is(await gw.reload(), true)
    assert.equal(await (await fetch(`${gw.url}/s/flaky`)).json(), { opened: 2 })
    assert.is(await count(), 4)
    assert.equal(events, ['open'])
  } finally {
    await gw.close()
  }
  assert.equal(events, ['open', 'close'])
})

test('the harness opens a plugin once per kernel, and closes the state of a kernel it made itself', async () => {
  events.length = 0
  const kernel = makeKernel()
  const first = await runPlugin(counter, {}, { kernel })
  const second = await runPlugin(counter, {}, { kernel })
  assert.equal(
    [(first.reply as { body: unknown }).body, (second.reply as { body: unknown }).body],
    [{ served: 1 }, { served: 2 }],
  )
  assert.is((await stateOf(counter, kernel)).served, 2)
  assert.equal(events, ['open'])
  events.length = 0
  await runPlugin(counter, {})
  assert.equal(events, ['open', 'close'])
})

test.run()
