/**
 * The isolation harness is production: it refuses what the loader refuses (a plugin run on
 * less state than its `requires`), fails on what the kernel only logs (a finish that throws),
 * and refuses a header set after the reply's headers left, as the HTTP transport now does.
 * The last case is shown over a real socket too.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { definePlugin } from '../../kernel/contract/plugin.js'
import { reply, type StreamEvent } from '../../kernel/contract/reply.js'
import { runPlugin } from '../../bin/testing/harness.js'
import { GatewayError } from '../../kernel/contract/errors.js'
import { startTestGateway, TEST_KEY } from '../support/gateway.js'

const test = suite('kernel: the harness is as strict as production')

const emptySchema = { type: 'object', additionalProperties: false, properties: {} } as const

const needsModel = definePlugin({
  name: 'needs-model',
  config: emptySchema,
  requires: ['principal', 'model'],
  setup: () => ({
    async request(_ex, next) {
      await next()
    },
  }),
})

const brokenFinish = definePlugin({
  name: 'broken-finish',
  config: emptySchema,
  setup: () => ({
    async finish() {
      throw new Error('settlement lost')
    },
  }),
})

/** Sets a header from its chunk phase: too late, the stream's headers are gone. */
const lateHeader = definePlugin({
  name: 'late-header',
  config: emptySchema,
  setup: () => ({
    chunk(ex, event) {
      ex.headers.set('x-gateway-too-late', '1')
      return event
    },
  }),
})

/** Answers with a three-event stream. */
const threeEvents = definePlugin({
  name: 'three-events',
  config: emptySchema,
  setup: () => ({
    async request(ex) {
      ex.reply = reply.events(
        (async function* (): AsyncGenerator<StreamEvent> {
          for (let i = 0; i < 3; i++) yield { i }
        })(),
        { terminator: '[DONE]' },
      )
    },
  }),
})

/** A dialect's stream (named events, its own error event) that fails after two events. */
const dialectStream = definePlugin({
  name: 'dialect-stream',
  config: emptySchema,
  setup: () => ({
    async request(ex) {
      ex.reply = reply.events(
        (async function* (): AsyncGenerator<StreamEvent> {
          yield { type: 'message_start', n: 1 }
          yield { type: 'content_block_delta', n: 2 }
          throw new GatewayError(502, 'upstream stream ended before it was complete')
        })(),
        { named: true, errorEvent: (e) => ({ type: 'error', error: { type: 'api_error', message: e.message } }) },
      )
    },
  }),
})

test('a scenario without what the plugin requires is refused, naming the slot', async () => {
  try {
    await runPlugin(needsModel, {}, { principal: { keyId: 'k', group: 'demo', legacy: false } })
    assert.unreachable('ran without the model slot')
  } catch (err) {
    assert.match((err as Error).message, "needs-model requires 'model', which the scenario does not provide")
  }
})

test('an error thrown in finish fails the test instead of being logged away', async () => {
  try {
    await runPlugin(brokenFinish, {})
    assert.unreachable('the finish error was swallowed')
  } catch (err) {
    assert.match((err as Error).message, 'the finish phase of broken-finish threw: settlement lost')
  }
})

test('a header set once the stream has started: the stream fails in the harness', async () => {
  const run = await runPlugin(
    lateHeader,
    {},
    {
      next: (ex) =>
        void (ex.reply = reply.events(
          (async function* () {
            yield { i: 0 }
          })(),
        )),
    },
  )
  assert.ok(run.error, 'the late header went unnoticed')
  assert.match(String(run.error?.cause ?? run.error?.message), /set after the reply's headers were sent/)
})

test('over HTTP the same header is refused: the stream ends with the error event, not a silent drop', async () => {
  const pipeline = `pipeline: gateway
prefix: /v1
routes:
  - id: models-list
    http: GET /models
    steps: [auth, model-catalog]
  - id: late
    http: GET /late
    steps: [auth, late-header, three-events]
`
  const gw = await startTestGateway({
    plugins: [lateHeader, threeEvents],
    files: { 'pipelines/gateway.yaml': pipeline },
  })
  try {
    const res = await fetch(`${gw.url}/v1/late`, { headers: { authorization: `Bearer ${TEST_KEY}` } })
    assert.is(res.status, 200)
    assert.is(res.headers.get('x-gateway-too-late'), null)
    const text = await res.text()
    assert.match(text, '"error"')
    assert.not.match(text, '[DONE]')
    assert.ok(
      gw.logs.some((l) => l.includes("set after the reply's headers were sent")),
      'the cause was not logged',
    )
  } finally {
    await gw.close()
  }
})

test('over HTTP a named stream writes event: lines and fails with its own dialect error event', async () => {
  const pipeline = `pipeline: gateway
prefix: /v1
routes:
  - id: models-list
    http: GET /models
    steps: [auth, model-catalog]
  - id: dialect
    http: GET /dialect
    steps: [auth, dialect-stream]
`
  const gw = await startTestGateway({ plugins: [dialectStream], files: { 'pipelines/gateway.yaml': pipeline } })
  try {
    const text = await (
      await fetch(`${gw.url}/v1/dialect`, { headers: { authorization: `Bearer ${TEST_KEY}` } })
    ).text()
    assert.is(
      text,
      'event: message_start\ndata: {"type":"message_start","n":1}\n\n' +
        'event: content_block_delta\ndata: {"type":"content_block_delta","n":2}\n\n' +
        'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"upstream stream ended before it was complete"}}\n\n',
    )
  } finally {
    await gw.close()
  }
})

test.run()
