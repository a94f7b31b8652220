import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import OpenAI from 'openai'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { defaultConfigDir, defaultPipelinesDir } from '../../kernel/contract/paths.js'
import { formatHash, hashSecret } from '../../protocols/credentials/secrets.js'

const test = suite('e2e chat contract (spec 000) with the openai SDK')
let gw: TestGateway
let client: OpenAI
type ApiError = InstanceType<typeof OpenAI.APIError>

const keys = `groups:
  demo: {}
  narrow: { models: [sim-chat-instruct] }
keys:
  - { id: demo, group: demo, demo: true }
  - { id: off, group: demo, enabled: false, hash: "${formatHash(hashSecret('sk-off'))}" }
  - { id: old, group: demo, legacy: true, hash: "${formatHash(hashSecret('sk-legacy'))}" }
  - { id: narrow, group: narrow, hash: "${formatHash(hashSecret('sk-narrow'))}" }
`
const models = fs
  .readFileSync(path.join(defaultConfigDir, 'models.yaml'), 'utf8')
  .replace(
    '  - id: sim-text-plain',
    '  - id: sim-off\n    model_type: chat\n    backend: sim\n    enabled: false\n  - id: sim-text-plain',
  )
const pipelines =
  fs.readFileSync(path.join(defaultPipelinesDir, 'gateway.yaml'), 'utf8') +
  '\n  - id: legacy-less\n    http: GET /legacy-less\n    steps:\n      - auth: { legacy: not-found }\n      - model-catalog\n'

test.before(async () => {
  gw = await startTestGateway({
    files: { 'config/keys.yaml': keys, 'config/models.yaml': models, 'pipelines/gateway.yaml': pipelines },
  })
  client = gw.openai()
})
test.after(async () => gw.close())

type ErrorClass = abstract new (...args: never[]) => Error

async function expectError(p: Promise<unknown>, cls: ErrorClass, status: number, message: string): Promise<ApiError> {
  try {
    await p
  } catch (err) {
    assert.instance(err, cls)
    const e = err as ApiError
    assert.is(e.status, status)
    assert.is((e.error as { message?: string }).message, message)
    assert.is((e.error as { type?: string }).type, 'gateway_error')
    return e
  }
  assert.unreachable(`expected ${status} ${message}`)
  throw new Error('unreachable')
}

const hi = [{ role: 'user' as const, content: 'Hello there' }]

// --- auth -----------------------------------------------------------------------------

test('missing bearer token: 401', async () => {
  const res = await fetch(`${gw.url}/v1/models`)
  assert.is(res.status, 401)
  assert.equal(await res.json(), { error: { message: 'missing bearer token', type: 'gateway_error' } })
})

test('invalid api key: 401 AuthenticationError', async () => {
  await expectError(gw.openai('sk-wrong').models.list(), OpenAI.AuthenticationError, 401, 'invalid api key')
})

test('api key disabled: 403 PermissionDeniedError', async () => {
  await expectError(
    gw.openai('sk-off').chat.completions.create({ model: 'sim-chat-instruct', messages: hi }),
    OpenAI.PermissionDeniedError,
    403,
    'api key disabled',
  )
})

test('legacy key on an endpoint the older gateway lacks: 404 {"detail":"Not Found"}; served elsewhere', async () => {
  const res = await fetch(`${gw.url}/v1/legacy-less`, { headers: { authorization: 'Bearer sk-legacy' } })
  assert.is(res.status, 404)
  assert.equal(await res.json(), { detail: 'Not Found' })
  const ok = await gw.openai('sk-legacy').chat.completions.create({ model: 'sim-chat-instruct', messages: hi })
  assert.ok(ok.choices.length > 0)
  assert.not.ok(
    gw.logs.some((l) => l.includes('sk-legacy') || l.includes(TEST_KEY)),
    'no secret in the logs',
  )
})

// --- model ----------------------------------------------------------------------------

test('model is required: 400 BadRequestError', async () => {
  await expectError(
    client.chat.completions.create({ messages: hi } as never),
    OpenAI.BadRequestError,
    400,
    'model is required',
  )
})

test('model X is not registered: 404 NotFoundError', async () => {
  await expectError(
    client.chat.completions.create({ model: 'gpt-4o', messages: hi }),
    OpenAI.NotFoundError,
    404,
    'model gpt-4o is not registered',
  )
})

test('model is disabled / not permitted for tenant: 403', async () => {
  await expectError(
    client.chat.completions.create({ model: 'sim-off', messages: hi }),
    OpenAI.PermissionDeniedError,
    403,
    'model is disabled',
  )
  await expectError(
    gw.openai('sk-narrow').chat.completions.create({ model: 'sim-vision', messages: hi }),
    OpenAI.PermissionDeniedError,
    403,
    'model not permitted for tenant',
  )
})

test("the server's own name answers, and GET /models/<server name> maps back", async () => {
  const res = await client.chat.completions.create({ model: 'sim-vision-7b', messages: hi })
  assert.is(res.model, 'sim-vision-7b')
  assert.is((await client.models.retrieve(res.model)).id, 'sim-vision')
})

test('a deprecated model carries the retirement headers, non-streamed and streamed', async () => {
  const check = (h: Headers) => {
    assert.is(h.get('x-gateway-model-status'), 'deprecated')
    assert.is(h.get('deprecation'), `@${Date.parse('2027-06-30T00:00:00Z') / 1000}`)
    assert.is(h.get('sunset'), 'Wed, 30 Jun 2027 00:00:00 GMT')
    assert.is(h.get('x-gateway-model-replacement'), 'sim-chat-instruct')
    assert.is(h.get('link'), '</v1/models/sim-chat-instruct>; rel="successor-version"')
  }
  const whole = await client.chat.completions.create({ model: 'sim-legacy-chat', messages: hi }).withResponse()
  check(whole.response.headers)
  const streamed = await client.chat.completions
    .create({ model: 'sim-legacy-chat', messages: hi, stream: true })
    .withResponse()
  check(streamed.response.headers)
  for await (const _ of streamed.data) void _
})

test('a retired model: 410 with code model_retired naming the replacement', async () => {
  try {
    await client.chat.completions.create({ model: 'sim-retired-chat', messages: hi })
    assert.unreachable()
  } catch (err) {
    assert.instance(err, OpenAI.APIError)
    const e = err as ApiError
    assert.is(e.status, 410)
    assert.is(e.code, 'model_retired')
    assert.match(e.message, /sim-retired-chat was retired; use sim-chat-instruct/)
  }
})

// --- reasoning and families -----------------------------------------------------------

test('reasoning effort X is not one of …: 400', async () => {
  await expectError(
    client.chat.completions.create({ model: 'sim-vision', messages: hi, reasoning_effort: 'extreme' as never }),
    OpenAI.BadRequestError,
    400,
    'reasoning effort extreme is not one of none, low, medium or high',
  )
})

test('a family picks its member by level, with its headers', async () => {
  const none = await client.chat.completions.create({ model: 'sim-chat', messages: hi }).withResponse()
  assert.is(none.data.model, 'sim-instruct-8b')
  assert.is(none.response.headers.get('x-gateway-model-variant'), 'sim-chat')
  assert.is(none.response.headers.get('x-gateway-reasoning-effort'), 'none')
  const high = await client.chat.completions
    .create({ model: 'sim-chat', messages: hi, reasoning_effort: 'max' as never, max_tokens: 400 })
    .withResponse()
  assert.is(high.data.model, 'sim-thinker-8b')
  assert.is(high.response.headers.get('x-gateway-reasoning-effort'), 'high')
  assert.type((high.data.choices[0]!.message as unknown as { reasoning: string }).reasoning, 'string')
})

test('a model lacking the level serves the nearest and names the ask; no control → unsupported', async () => {
  const v = await client.chat.completions
    .create({ model: 'sim-vision', messages: hi, reasoning_effort: 'low' })
    .withResponse()
  assert.is(v.response.headers.get('x-gateway-reasoning-effort'), 'none')
  assert.is(v.response.headers.get('x-gateway-reasoning-effort-requested'), 'low')
  const p = await client.chat.completions
    .create({ model: 'sim-text-plain', messages: hi, reasoning_effort: 'high' })
    .withResponse()
  assert.is(p.response.headers.get('x-gateway-reasoning-effort'), 'unsupported')
})

test('streamed reasoning arrives in delta.reasoning (from a reasoning_content server too)', async () => {
  for (const model of ['sim-chat-thinking', 'sim-vision']) {
    const stream = await client.chat.completions.create({
      model,
      messages: hi,
      stream: true,
      reasoning_effort: 'high',
      max_tokens: 600,
    })
    let reasoning = ''
    let content = ''
    let rawField = false
    for await (const c of stream) {
      const d = c.choices[0]?.delta as { reasoning?: string; reasoning_content?: string; content?: string } | undefined
      reasoning += d?.reasoning ?? ''
      content += d?.content ?? ''
      if (d?.reasoning_content !== undefined) rawField = true
    }
    assert.ok(reasoning.length > 0, `${model} reasoning`)
    assert.ok(content.length > 0, `${model} content`)
    assert.not.ok(rawField, 'reasoning_content never reaches the client')
  }
})

test('a thinking model that spends its budget thinking answers with empty content', async () => {
  const res = await client.chat.completions.create({
    model: 'sim-chat-thinking',
    messages: hi,
    reasoning_effort: 'high',
    max_tokens: 8,
  })
  assert.is(res.choices[0]!.message.content, '')
  assert.is(res.choices[0]!.finish_reason, 'length')
  assert.ok(((res.choices[0]!.message as unknown as { reasoning: string }).reasoning ?? '').length > 0)
})

// --- capabilities -----------------------------------------------------------------------

const weather = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
}

test('tools and tool_choice only on models that support them', async () => {
  await expectError(
    client.chat.completions.create({ model: 'sim-text-plain', messages: hi, tools: [weather] }),
    OpenAI.BadRequestError,
    400,
    'model sim-text-plain does not support tools',
  )
  await expectError(
    client.chat.completions.create({ model: 'sim-text-plain', messages: hi, tool_choice: 'none' }),
    OpenAI.BadRequestError,
    400,
    'model sim-text-plain does not support tool_choice',
  )
})

test('a tool round trip', async () => {
  const first = await client.chat.completions.create({
    model: 'sim-chat-instruct',
    messages: [{ role: 'user', content: 'What is the weather in Oslo? Use get_weather.' }],
    tools: [weather],
    tool_choice: 'required',
  })
  const call = first.choices[0]!.message.tool_calls?.[0]
  assert.ok(call && call.type === 'function')
  assert.is(call.function.name, 'get_weather')
  assert.type(JSON.parse(call.function.arguments).city, 'string')
  const second = await client.chat.completions.create({
    model: 'sim-chat-instruct',
    tools: [weather],
    messages: [
      { role: 'user', content: 'What is the weather in Oslo? Use get_weather.' },
      first.choices[0]!.message,
      { role: 'tool', tool_call_id: call.id, content: 'Sunny, 21 degrees in Oslo' },
    ],
  })
  assert.match(second.choices[0]!.message.content ?? '', /Sunny, 21 degrees/)
})

test('a json_schema reply parses and has the schema shape', async () => {
  const res = await client.chat.completions.create({
    model: 'sim-chat-instruct',
    temperature: 0,
    messages: [{ role: 'user', content: 'Extract: Ada, 36' }],
    response_format: {
      type: 'json_schema',
      json_schema: {
        name: 'person',
        strict: true,
        schema: {
          type: 'object',
          properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
          required: ['name', 'age'],
          additionalProperties: false,
        },
      },
    },
  })
  const parsed = JSON.parse(res.choices[0]!.message.content!) as { name: unknown; age: unknown }
  assert.type(parsed.name, 'string')
  assert.ok(Number.isInteger(parsed.age))
})

const png =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
const withImage = [
  {
    role: 'user' as const,
    content: [
      { type: 'text' as const, text: 'What is in this picture?' },
      { type: 'image_url' as const, image_url: { url: png } },
    ],
  },
]

test('images: 400 for a text-only model without the vision boon', async () => {
  await expectError(
    client.chat.completions.create({ model: 'sim-text-plain', messages: withImage }),
    OpenAI.BadRequestError,
    400,
    'model does not accept images; use a model with vision',
  )
})

test('images: a vision model reads them; a text-only model gets them described by its vision boon', async () => {
  const v = await client.chat.completions.create({ model: 'sim-vision', messages: withImage })
  assert.ok(v.choices[0]!.message.content)
  const b = await client.chat.completions.create({ model: 'sim-text-boon', messages: withImage }).withResponse()
  assert.is(b.response.headers.get('x-gateway-boons'), 'vision')
  assert.is(b.data.model, 'sim-text-3b')
  await expectError(
    client.chat.completions.create(
      { model: 'sim-text-boon', messages: withImage },
      { headers: { 'x-gateway-boons': 'off' } },
    ),
    OpenAI.BadRequestError,
    400,
    'model does not accept images; use a model with vision',
  )
})

test('auto picks a vision model for images', async () => {
  const res = await client.chat.completions.create({ model: 'auto', messages: withImage }).withResponse()
  assert.is(res.response.headers.get('x-gateway-model-auto'), 'sim-vision')
})

// --- the reply -------------------------------------------------------------------------

test('cached tokens: a repeated long prefix is reported as cached', async () => {
  const system = { role: 'system' as const, content: 'You are a careful assistant. '.repeat(40) }
  await client.chat.completions.create({
    model: 'sim-chat-instruct',
    messages: [system, { role: 'user', content: 'first' }],
  })
  const again = await client.chat.completions.create({
    model: 'sim-chat-instruct',
    messages: [system, { role: 'user', content: 'second' }],
  })
  assert.ok((again.usage?.prompt_tokens_details?.cached_tokens ?? 0) > 0)
})

test('finish_reason is on the last content chunk, before the usage chunk', async () => {
  const stream = await client.chat.completions.create({
    model: 'sim-chat-instruct',
    messages: hi,
    stream: true,
    stream_options: { include_usage: true },
  })
  const chunks = []
  for await (const c of stream) chunks.push(c)
  const usage = chunks.at(-1)!
  assert.ok(usage.usage && usage.choices.length === 0)
  const withFinish = chunks.findIndex((c) => c.choices[0]?.finish_reason)
  assert.is(withFinish, chunks.length - 2)
})

// --- upstream errors and limits ------------------------------------------------------------

test("a model server's 400 (context length) passes through with its message", async () => {
  try {
    const long = [{ role: 'user' as const, content: 'A rather long question about many things. '.repeat(40) }]
    await client.chat.completions.create({ model: 'sim-text-plain', messages: long, max_tokens: 8100 })
    assert.unreachable()
  } catch (err) {
    assert.instance(err, OpenAI.BadRequestError)
    assert.match((err as ApiError).message, /context length is only 8192 tokens/)
  }
})

test('completions: only for models that support them', async () => {
  const ok = await client.completions.create({ model: 'sim-chat-instruct', prompt: 'Say something', max_tokens: 5 })
  assert.type(ok.choices[0]!.text, 'string')
  await expectError(
    client.completions.create({ model: 'sim-vision', prompt: 'x' }),
    OpenAI.BadRequestError,
    400,
    'model sim-vision does not support completions',
  )
})

test.run()

const limits = suite('e2e request time limit')
let slow: TestGateway

limits.before(async () => {
  slow = await startTestGateway({ server: { limits: { request_timeout_ms: 400, queue_timeout_ms: 300000 } } })
})
limits.after(async () => slow.close())

limits('past the limit, non-streamed: 504 upstream request timed out', async () => {
  await expectError(
    slow
      .openai()
      .chat.completions.create({ model: 'sim-chat-instruct', messages: hi }, { headers: { 'x-sim-stall-ms': '3000' } }),
    OpenAI.APIError,
    504,
    'upstream request timed out',
  )
})

limits('past the limit, streamed: the error event, no [DONE]', async () => {
  const res = await fetch(`${slow.url}/v1/chat/completions`, {
    method: 'POST',
    // The simulator sends the stream's headers, then stalls: the limit passes mid-stream.
    headers: { authorization: `Bearer ${TEST_KEY}`, 'x-sim-stall-ms': '3000' },
    body: JSON.stringify({ model: 'sim-chat-instruct', messages: hi, stream: true, max_tokens: 50 }),
  })
  const text = await res.text()
  assert.not.ok(text.includes('[DONE]'))
  const last = JSON.parse(text.trim().split('\n\n').at(-1)!.slice(6)) as { error: { message: string; code: number } }
  assert.equal(last.error, { message: 'upstream request timed out', type: 'gateway_error', code: 502 })
})

limits.run()
