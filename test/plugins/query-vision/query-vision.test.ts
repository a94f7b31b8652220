/** query-vision in isolation: the chat call it makes, the model it chooses, the image rule, the envelope. */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import queryVision from '../../../plugins/query-vision/index.js'
import { makeKernel, runPlugin, setupPlugin } from '../../../bin/testing/harness.js'
import { fakeRoute, queryAuthState, queryPrincipal } from '../../support/query-state.js'
import type { UsageMetric } from '../../../protocols/query/usage-metric.js'

const test = suite('plugins/query-vision')
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

function chat() {
  return fakeRoute((_route, body) => ({
    body: { choices: [{ message: { role: 'assistant', content: 'A cat.' } }] },
    model: String(body.model),
    input: 300,
    output: 4,
  }))
}

test('one user message with the query and the image, under the principal; project defaults apply', async () => {
  const { call, calls } = chat()
  const run = await runPlugin(
    queryVision,
    {},
    {
      kernel: makeKernel({ call }),
      principal: queryPrincipal,
      state: queryAuthState('developer', {
        model_name: 'sim-chat-instruct',
        model_params: { temperature: 0.2, system_prompt: 'Be brief.' },
      }),
      body: { query: 'What is it?', image: `data:image/png;base64,${PNG}` },
    },
  )
  assert.is(run.error, undefined, run.error?.message)
  assert.is(calls.length, 1)
  const [c] = calls
  assert.is(c!.route, 'query-chat')
  assert.equal(c!.options?.principal, queryPrincipal)
  assert.is(c!.body.model, 'sim-vision', 'the default model cannot see: the first vision model')
  assert.is(c!.body.temperature, 0.2)
  assert.equal(c!.body.messages, [
    { role: 'system', content: 'Be brief.' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What is it?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      ],
    },
  ])
  const body = (
    run.reply as {
      body: {
        response: { response: string; metadata: { usage_metric: UsageMetric; model_name: string } }
        file: string
      }
    }
  ).body
  assert.is(body.file, 'vision')
  assert.is(body.response.response, 'A cat.')
  const m = body.response.metadata.usage_metric
  assert.is(m.input_token_count, 300)
  assert.is(m.input_token_details.incontext_text, 256, "sim-vision's tokens_per_image")
  assert.is(
    Object.values(m.input_token_details).reduce((s, n) => s + n, 0),
    300,
  )
})

test('a vision-capable project default is used; model_params override it; thinking_level becomes reasoning_effort', async () => {
  const { call, calls } = chat()
  const run = await runPlugin(
    queryVision,
    {},
    {
      kernel: makeKernel({ call }),
      principal: queryPrincipal,
      state: queryAuthState('developer', { model_name: 'sim-vision', model_params: { temperature: 0.2 } }),
      body: {
        query: 'q',
        image: 'https://example.org/a.png',
        model_params: { temperature: 1, thinking_level: 'HIGH' },
      },
    },
  )
  assert.is(run.error, undefined, run.error?.message)
  assert.equal(
    [calls[0]!.body.model, calls[0]!.body.temperature, calls[0]!.body.reasoning_effort],
    ['sim-vision', 1, 'high'],
  )
})

test('images the rule refuses and bare base64 without a type: 400 before any call', async () => {
  for (const [image, message] of [
    ['http://example.org/a.png', /image must be a data URL/],
    ['https://10.0.0.1/a.png', /image must be a data URL/],
    [PNG, /image_content_type is required/],
    ['not base64 at all!', /image_content_type is required/],
  ] as const) {
    const { call, calls } = chat()
    const run = await runPlugin(
      queryVision,
      {},
      {
        kernel: makeKernel({ call }),
        principal: queryPrincipal,
        state: queryAuthState('developer'),
        body: { query: 'q', image },
      },
    )
    assert.is(run.error?.status, 400, image)
    assert.match(run.error!.message, message)
    assert.is(calls.length, 0)
  }
  const { call } = chat()
  const notBase64 = await runPlugin(
    queryVision,
    {},
    {
      kernel: makeKernel({ call }),
      principal: queryPrincipal,
      state: queryAuthState('developer'),
      body: { query: 'q', image: 'a$b', image_content_type: 'image/png' },
    },
  )
  assert.is(notBase64.error?.message, 'image is neither a URL nor valid base64 data')
})

test('max_image_bytes: 413 beyond it', async () => {
  const { call } = chat()
  const run = await runPlugin(
    queryVision,
    { max_image_bytes: 10 },
    {
      kernel: makeKernel({ call }),
      principal: queryPrincipal,
      state: queryAuthState('developer'),
      body: { query: 'q', image: PNG, image_content_type: 'image/png' },
    },
  )
  assert.is(run.error?.status, 413)
})

test('a service token sending model_name without override_params: 400', async () => {
  const { call } = chat()
  const run = await runPlugin(
    queryVision,
    {},
    {
      kernel: makeKernel({ call }),
      principal: queryPrincipal,
      state: queryAuthState('service'),
      body: { query: 'q', image: 'https://example.org/a.png', model_name: 'sim-vision' },
    },
  )
  assert.is(run.error?.status, 400)
  assert.is(
    run.error?.message,
    'a service token sends its own parameters only with request_source "override_params" (sent: model_name)',
  )
})

test('options are checked at load', async () => {
  try {
    await setupPlugin(queryVision, { max_image_bytes: 0 })
    assert.unreachable()
  } catch (err) {
    assert.match((err as Error).message, /bad options/)
  }
})

test.run()
