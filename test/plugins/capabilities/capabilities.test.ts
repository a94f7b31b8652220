import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import capabilities from '../../../plugins/capabilities/index.js'
import { makeKernel, runPlugin } from '../../../bin/testing/harness.js'

const test = suite('plugin capabilities')
const kernel = makeKernel()
const run = (id: string, body: Record<string, unknown>, headers: Record<string, string> = {}, options: object = {}) =>
  runPlugin(capabilities, options, {
    kernel,
    headers,
    state: { model: { requested: id, model: kernel.catalog.model(id)! } },
    body,
  })
const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }]
const image = [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'what is this' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
    ],
  },
]

test('tools only on models with supports_function_calling', async () => {
  const bad = await run('sim-text-plain', { tools })
  assert.is(bad.error?.status, 400)
  assert.is(bad.error?.message, 'model sim-text-plain does not support tools')
  assert.is(bad.nextCalled, false)
  assert.ok((await run('sim-chat-instruct', { tools })).nextCalled)
})

test('tool_choice only on models with supports_tool_choice', async () => {
  const bad = await run('sim-text-plain', { tool_choice: 'auto' })
  assert.is(bad.error?.message, 'model sim-text-plain does not support tool_choice')
  assert.ok((await run('sim-chat-instruct', { tools, tool_choice: 'required' })).nextCalled)
})

test('images: vision models take them', async () => {
  assert.ok((await run('sim-vision', { messages: image })).nextCalled)
})

test('images: a text-only model without the vision boon refuses them', async () => {
  const r = await run('sim-text-plain', { messages: image })
  assert.is(r.error?.status, 400)
  assert.is(r.error?.message, 'model does not accept images; use a model with vision')
})

test('images: a text-only model with the vision boon takes them, unless boons are off', async () => {
  assert.ok((await run('sim-text-boon', { messages: image })).nextCalled)
  const off = await run('sim-text-boon', { messages: image }, { 'x-gateway-boons': 'off' })
  assert.is(off.error?.message, 'model does not accept images; use a model with vision')
})

test('response_format and other fields pass through untouched', async () => {
  const body = {
    messages: [{ role: 'user', content: 'x' }],
    response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } },
    top_p: 0.5,
    seed: 3,
  }
  const r = await run('sim-text-plain', structuredClone(body))
  assert.ok(r.nextCalled)
  assert.equal(r.ex.body, body)
})

test('images: allow passes them to any model', async () => {
  assert.ok((await run('sim-text-plain', { messages: image }, {}, { images: 'allow' })).nextCalled)
})

test('image URLs: only a base64 data URL or a public https URL, whatever the model and the images option', async () => {
  const withUrl = (url: string) => [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'what is this' },
        { type: 'image_url', image_url: { url } },
      ],
    },
  ]
  for (const url of [
    'http://127.0.0.1/x.png',
    'https://169.254.169.254/latest',
    'file:///etc/passwd',
    'https://[::1]/a.png',
    'https://10.0.0.1/a.png',
    'https://localhost/a.png',
  ]) {
    for (const [model, options] of [
      ['sim-vision', {}],
      ['sim-text-plain', { images: 'allow' }],
    ] as const) {
      const r = await run(model, { messages: withUrl(url) }, {}, options)
      assert.is(r.error?.status, 400, url)
      assert.is(
        r.error?.message,
        'messages[0].content[1].image_url.url must be a base64 data URL or a public https:// URL',
      )
      assert.is(r.nextCalled, false)
    }
  }
  assert.ok((await run('sim-vision', { messages: withUrl('https://example.com/cat.png') })).nextCalled)
})

test('embeddings: dimensions up to the size of a Matryoshka model; a fixed-size model takes only its own', async () => {
  assert.ok((await run('sim-embed', { input: 'x', dimensions: 384 })).nextCalled)
  assert.ok((await run('sim-embed', { input: 'x', dimensions: 1 })).nextCalled)
  const over = await run('sim-embed', { input: 'x', dimensions: 385 })
  assert.equal(
    [over.error?.status, over.error?.message, over.nextCalled],
    [400, 'model sim-embed returns at most 384 dimensions; 385 were asked', false],
  )
  const fixed = { ...kernel.catalog.model('sim-embed')!, supports_dimensions: false }
  const runFixed = (dimensions: number) =>
    runPlugin(
      capabilities,
      {},
      { kernel, state: { model: { requested: 'e', model: fixed } }, body: { input: 'x', dimensions } },
    )
  assert.ok((await runFixed(384)).nextCalled)
  assert.is((await runFixed(256)).error?.message, 'model e does not support dimensions (its vectors have 384)')
})

test('embeddings: token-id inputs longer than the context window are refused; text is left to the model server', async () => {
  const long = await run('sim-embed', { input: [[1], Array(513).fill(1)] })
  assert.equal(
    [long.error?.status, long.error?.message],
    [400, 'input[1] has 513 tokens; model sim-embed takes at most 512'],
  )
  assert.ok((await run('sim-embed', { input: Array(512).fill(1) })).nextCalled)
  assert.ok((await run('sim-embed', { input: 'x'.repeat(100_000) })).nextCalled)
})

// Request bounds (models.yaml `limits`): refused before anything is reserved, naming the field and the limit.
const ask = (id: string, body: Record<string, unknown>, model: object = {}, state: object = {}) =>
  runPlugin(
    capabilities,
    {},
    {
      kernel,
      state: { model: { requested: id, model: { ...kernel.catalog.model(id)!, ...model } }, ...state },
      body: { messages: [{ role: 'user', content: 'x' }], ...body },
    },
  )

test('bounds: n at most 16 by default; at the limit it passes', async () => {
  const over = await ask('sim-chat-instruct', { n: 128 })
  assert.is(over.error?.status, 400)
  assert.is(over.error?.message, 'n 128 is over the limit of 16 for model sim-chat-instruct')
  assert.is(over.nextCalled, false)
  assert.ok((await ask('sim-chat-instruct', { n: 16 })).nextCalled)
})

test("bounds: output tokens at most the model's context window by default, under either field", async () => {
  const tokens = await ask('sim-text-plain', { max_tokens: 32000 })
  assert.is(tokens.error?.message, 'max_tokens 32000 is over the limit of 8192 for model sim-text-plain')
  const completion = await ask('sim-text-plain', { max_completion_tokens: 8193 })
  assert.is(completion.error?.message, 'max_completion_tokens 8193 is over the limit of 8192 for model sim-text-plain')
  assert.ok((await ask('sim-text-plain', { max_tokens: 8192 })).nextCalled)
})

test('bounds: a body translated from the Responses API is told its own field, max_output_tokens', async () => {
  const r = await ask('sim-text-plain', { max_tokens: 9000 }, {}, { responses: { id: 'resp_1', store: false } })
  assert.is(r.error?.message, 'max_output_tokens 9000 is over the limit of 8192 for model sim-text-plain')
})

test('bounds: top_logprobs at most 20 by default; the integer logprobs of /v1/completions too', async () => {
  const chat = await ask('sim-chat-instruct', { logprobs: true, top_logprobs: 21 })
  assert.is(chat.error?.message, 'top_logprobs 21 is over the limit of 20 for model sim-chat-instruct')
  assert.ok((await ask('sim-chat-instruct', { logprobs: true, top_logprobs: 20 })).nextCalled)
  const legacy = await ask('sim-chat-instruct', { messages: undefined, prompt: 'x', logprobs: 64, best_of: 2 })
  assert.is(legacy.error?.message, 'logprobs 64 is over the limit of 20 for model sim-chat-instruct')
  const bestOf = await ask('sim-chat-instruct', { messages: undefined, prompt: 'x', best_of: 17 })
  assert.is(bestOf.error?.message, 'best_of 17 is over the limit of 16 for model sim-chat-instruct')
})

test("bounds: a model's own limits replace the defaults", async () => {
  const limits = { limits: { max_n: 2, max_output_tokens: 100, max_top_logprobs: 5 } }
  assert.is(
    (await ask('sim-chat-instruct', { n: 3 }, limits)).error?.message,
    'n 3 is over the limit of 2 for model sim-chat-instruct',
  )
  assert.is(
    (await ask('sim-chat-instruct', { max_tokens: 101 }, limits)).error?.message,
    'max_tokens 101 is over the limit of 100 for model sim-chat-instruct',
  )
  assert.is(
    (await ask('sim-chat-instruct', { top_logprobs: 6 }, limits)).error?.message,
    'top_logprobs 6 is over the limit of 5 for model sim-chat-instruct',
  )
  assert.ok((await ask('sim-chat-instruct', { n: 2, max_tokens: 100, top_logprobs: 5 }, limits)).nextCalled)
})

test('bounds: values of another type are left to the model server', async () => {
  assert.ok((await ask('sim-chat-instruct', { n: '128', max_tokens: null })).nextCalled)
})

test.run()
