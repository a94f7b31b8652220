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

test.run()
