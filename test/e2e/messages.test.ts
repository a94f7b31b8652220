/**
 * The Messages API with the official `@anthropic-ai/sdk` over a real socket: create, stream,
 * tools, thinking, countTokens, both ways of sending the key, the SDK's error classes, a cut
 * stream, the 32 MiB body limit, and one usage record per request.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import Anthropic from '@anthropic-ai/sdk'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { keysFile } from '../support/deployment-files.js'
import type { UsageRecord } from '../../kernel/contract/records.js'

const test = suite('e2e the Messages API with @anthropic-ai/sdk')
let gw: TestGateway
let client: Anthropic

const keys = keysFile({}, [
  { id: 'broke', group: 'demo', secret: 'sk-broke', budget: { amount: 0, term: 'month' } },
  { id: 'slow', group: 'demo', secret: 'sk-slow', tokens_per_minute: 1 },
  { id: 'rec', group: 'demo', secret: 'sk-rec' },
  { id: 'rec-stream', group: 'demo', secret: 'sk-rec-stream' },
])

const anthropic = (apiKey: string | null = TEST_KEY, options: { authToken?: string } = {}) =>
  new Anthropic({ apiKey, authToken: options.authToken ?? null, baseURL: gw.url, maxRetries: 0, timeout: 30_000 })

test.before(async () => {
  gw = await startTestGateway({ files: { 'config/keys.yaml': keys } })
  client = anthropic()
})
test.after(() => gw.close())

const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
const weatherTool: Anthropic.Tool = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}

type ErrorClass = abstract new (...args: never[]) => Error

async function expectError(
  p: Promise<unknown>,
  cls: ErrorClass,
  status: number,
  type: string,
  message?: string,
): Promise<void> {
  try {
    await p
  } catch (err) {
    assert.instance(err, cls)
    const e = err as InstanceType<typeof Anthropic.APIError>
    assert.is(e.status, status)
    const body = e.error as { type?: string; error?: { type?: string; message?: string } }
    assert.is(body.type, 'error')
    assert.is(body.error?.type, type)
    if (message !== undefined) assert.is(body.error?.message, message)
    return
  }
  assert.unreachable(`expected ${status} ${type}`)
}

/** The SSE events of a raw streamed request, as [event, data] pairs. */
async function rawEvents(
  body: object,
  headers: Record<string, string> = {},
): Promise<[string, Record<string, unknown>][]> {
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: {
      'x-api-key': TEST_KEY,
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      ...headers,
    },
    body: JSON.stringify(body),
  })
  assert.is(res.status, 200)
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/)
  const text = await res.text()
  assert.not.match(text, /\[DONE\]/)
  return text
    .trim()
    .split('\n\n')
    .map((frame) => {
      const [eventLine, dataLine] = frame.split('\n') as [string, string]
      assert.match(eventLine, /^event: /)
      const data = JSON.parse(dataLine.replace(/^data: /, '')) as Record<string, unknown>
      assert.is(data.type, eventLine.slice('event: '.length), 'the event line names the data type')
      return [data.type as string, data]
    })
}

// --- create ---------------------------------------------------------------------------------

test('messages.create: a text message in Anthropic shape, with the model as asked', async () => {
  const { data: msg, response } = await client.messages
    .create({ model: 'sim-chat-instruct', max_tokens: 32, messages: [{ role: 'user', content: 'Hello there' }] })
    .withResponse()
  assert.match(msg.id, /^msg_[A-Za-z0-9]+$/)
  assert.is(msg.type, 'message')
  assert.is(msg.role, 'assistant')
  assert.is(msg.model, 'sim-chat-instruct')
  assert.is(msg.content.length, 1)
  assert.is(msg.content[0]!.type, 'text')
  assert.ok((msg.content[0] as Anthropic.TextBlock).text.length > 0)
  assert.ok(msg.stop_reason === 'end_turn' || msg.stop_reason === 'max_tokens', String(msg.stop_reason))
  assert.is(msg.stop_sequence, null)
  assert.ok(msg.usage.input_tokens > 0 && msg.usage.output_tokens > 0)
  assert.ok(msg.usage.output_tokens <= 32)
  assert.is(response.headers.get('request-id'), response.headers.get('x-gateway-request-id'))
})

test('a small max_tokens ends with stop_reason max_tokens', async () => {
  const msg = await client.messages.create({
    model: 'sim-chat-instruct',
    max_tokens: 1,
    messages: [{ role: 'user', content: 'Tell me a long story' }],
  })
  assert.is(msg.stop_reason, 'max_tokens')
  assert.is(msg.usage.output_tokens, 1)
})

test('system as a string and as text blocks, and a multi-turn conversation', async () => {
  const turns: Anthropic.MessageParam[] = [
    { role: 'user', content: 'Hi' },
    { role: 'assistant', content: [{ type: 'text', text: 'Hello! How can I help?' }] },
    { role: 'user', content: [{ type: 'text', text: 'Say something short.' }] },
  ]
  const a = await client.messages.create({
    model: 'sim-chat-instruct',
    max_tokens: 16,
    system: 'You are terse.',
    messages: turns,
  })
  const b = await client.messages.create({
    model: 'sim-chat-instruct',
    max_tokens: 16,
    system: [{ type: 'text', text: 'You are terse.' }],
    messages: turns,
  })
  const bare = await client.messages.create({ model: 'sim-chat-instruct', max_tokens: 16, messages: turns })
  const total = (m: Anthropic.Message) => m.usage.input_tokens + (m.usage.cache_read_input_tokens ?? 0)
  assert.is(total(a), total(b), 'both forms of system are the same prompt')
  assert.ok(total(a) > total(bare), 'the system prompt is sent')
  assert.is(a.content[0]!.type, 'text')
})

test('an image block (base64) reaches the vision model', async () => {
  const msg = await client.messages.create({
    model: 'sim-vision',
    max_tokens: 16,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
          { type: 'text', text: 'What is in this image?' },
        ],
      },
    ],
  })
  const text = await client.messages.create({
    model: 'sim-vision',
    max_tokens: 16,
    messages: [{ role: 'user', content: 'What is in this image?' }],
  })
  assert.is(msg.content[0]!.type, 'text')
  assert.ok(
    msg.usage.input_tokens + (msg.usage.cache_read_input_tokens ?? 0) >
      text.usage.input_tokens + (text.usage.cache_read_input_tokens ?? 0),
    'the image counts as input',
  )
})

test('an image URL on a private network is refused with its path, before any model runs', async () => {
  await expectError(
    client.messages.create({
      model: 'sim-vision',
      max_tokens: 16,
      messages: [
        { role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://169.254.169.254/x.png' } }] },
      ],
    }),
    Anthropic.BadRequestError,
    400,
    'invalid_request_error',
    'messages.0.content.0.source.url must be a public https:// URL',
  )
})

// --- stream ---------------------------------------------------------------------------------

test('.stream(): the text arrives in deltas and finalMessage is the whole message', async () => {
  const stream = client.messages.stream({
    model: 'sim-chat-instruct',
    max_tokens: 40,
    messages: [{ role: 'user', content: 'Write a sentence.' }],
  })
  let text = ''
  stream.on('text', (delta) => void (text += delta))
  const msg = await stream.finalMessage()
  assert.ok(text.length > 0)
  assert.is((msg.content[0] as Anthropic.TextBlock).text, text)
  assert.match(msg.id, /^msg_/)
  assert.ok(msg.stop_reason === 'end_turn' || msg.stop_reason === 'max_tokens')
  assert.ok(msg.usage.input_tokens > 0 && msg.usage.output_tokens > 0)
})

test('the raw stream: named events in Anthropic order, exact input tokens in message_start, no [DONE]', async () => {
  const events = await rawEvents({
    model: 'sim-chat-instruct',
    max_tokens: 20,
    stream: true,
    messages: [{ role: 'user', content: 'Count to five.' }],
  })
  const types = events.map(([t]) => t)
  assert.is(types[0], 'message_start')
  assert.is(types[1], 'content_block_start')
  assert.is(types.at(-3), 'content_block_stop')
  assert.is(types.at(-2), 'message_delta')
  assert.is(types.at(-1), 'message_stop')
  assert.ok(types.slice(2, -3).every((t) => t === 'content_block_delta'))
  const start = events[0]![1].message as { usage: { input_tokens: number; cache_read_input_tokens: number } }
  const delta = events.at(-2)![1] as {
    usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens: number }
    delta: { stop_reason: string }
  }
  assert.is(start.usage.input_tokens, delta.usage.input_tokens, 'message_start already has the reported count')
  assert.ok(delta.usage.output_tokens > 0)
  const counted = await client.messages.countTokens({
    model: 'sim-chat-instruct',
    messages: [{ role: 'user', content: 'Count to five.' }],
  })
  assert.is(start.usage.input_tokens + start.usage.cache_read_input_tokens, counted.input_tokens)
})

test('a stream cut upstream ends with the error event, which the SDK raises', async () => {
  const events = await rawEvents(
    {
      model: 'sim-chat-instruct',
      max_tokens: 50,
      stream: true,
      messages: [{ role: 'user', content: 'a long answer please' }],
    },
    { 'x-sim-cut-after': '3' },
  )
  const last = events.at(-1)!
  assert.is(last[0], 'error')
  assert.equal(last[1], {
    type: 'error',
    error: { type: 'api_error', message: (last[1].error as { message: string }).message },
  })
  assert.not.ok(events.some(([t]) => t === 'message_stop'))

  const stream = client.messages.stream(
    { model: 'sim-chat-instruct', max_tokens: 50, messages: [{ role: 'user', content: 'a long answer please' }] },
    { headers: { 'x-sim-cut-after': '3' } },
  )
  try {
    await stream.finalMessage()
    assert.unreachable('the stream should fail')
  } catch (err) {
    assert.instance(err, Anthropic.APIError)
  }
})

// --- tools ----------------------------------------------------------------------------------

test('tools: tool_use, then the tool_result comes back and the model answers with text', async () => {
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Use the get_weather tool for Paris.' }]
  const first = await client.messages.create({
    model: 'sim-chat-instruct',
    max_tokens: 200,
    tools: [weatherTool],
    messages,
  })
  assert.is(first.stop_reason, 'tool_use')
  const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!
  assert.ok(use, 'a tool_use block')
  assert.is(use.name, 'get_weather')
  assert.type(use.id, 'string')
  assert.type((use.input as { city?: unknown }).city, 'string')

  messages.push({ role: 'assistant', content: first.content })
  messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Sunny, 21 degrees' }] })
  const second = await client.messages.create({
    model: 'sim-chat-instruct',
    max_tokens: 200,
    tools: [weatherTool],
    messages,
  })
  assert.is(second.stop_reason, 'end_turn')
  const text = second.content.find((b): b is Anthropic.TextBlock => b.type === 'text')!
  assert.ok(text.text.includes('Sunny, 21'), text.text)
})

test('tools streamed: input_json_delta pieces make the input; tool_choice any and tool force a call', async () => {
  const stream = client.messages.stream({
    model: 'sim-chat-instruct',
    max_tokens: 200,
    tools: [weatherTool],
    tool_choice: { type: 'any' },
    messages: [{ role: 'user', content: 'Hello' }],
  })
  let json = ''
  stream.on('inputJson', (partial) => void (json += partial))
  const msg = await stream.finalMessage()
  const use = msg.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!
  assert.is(use.name, 'get_weather')
  assert.equal(use.input, JSON.parse(json))
  assert.is(msg.stop_reason, 'tool_use')

  const named = await client.messages.create({
    model: 'sim-chat-instruct',
    max_tokens: 200,
    tools: [weatherTool],
    tool_choice: { type: 'tool', name: 'get_weather' },
    messages: [{ role: 'user', content: 'Hello' }],
  })
  assert.is(named.stop_reason, 'tool_use', 'a forced tool ends with tool_use, as Anthropic says it')
  const none = await client.messages.create({
    model: 'sim-chat-instruct',
    max_tokens: 20,
    tools: [weatherTool],
    tool_choice: { type: 'none' },
    messages: [{ role: 'user', content: 'Use the get_weather tool' }],
  })
  assert.not.ok(none.content.some((b) => b.type === 'tool_use'))
})

// --- thinking -------------------------------------------------------------------------------

test('thinking enabled: a thinking block with a signature comes first, then the text', async () => {
  const { data: msg, response } = await client.messages
    .create({
      model: 'sim-chat-thinking',
      max_tokens: 2000,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'Why is the sky blue?' }],
    })
    .withResponse()
  assert.is(response.headers.get('x-gateway-reasoning-effort'), 'low', 'budget 1024 is the low level')
  const thinking = msg.content[0] as Anthropic.ThinkingBlock
  assert.is(thinking.type, 'thinking')
  assert.ok(thinking.thinking.length > 0)
  assert.ok(thinking.signature.length > 0)
  assert.is(msg.content[1]!.type, 'text')
})

test('thinking streamed: thinking_delta pieces and a signature_delta before the block stops', async () => {
  const events = await rawEvents({
    model: 'sim-chat-thinking',
    max_tokens: 9000,
    stream: true,
    thinking: { type: 'enabled', budget_tokens: 8192 },
    messages: [{ role: 'user', content: 'Think first.' }],
  })
  const start = events.find(([t]) => t === 'content_block_start')![1] as {
    index: number
    content_block: { type: string }
  }
  assert.equal(start, {
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'thinking', thinking: '', signature: '' },
  })
  const deltas = events
    .filter(([t, d]) => t === 'content_block_delta' && d.index === 0)
    .map(([, d]) => (d.delta as { type: string }).type)
  assert.ok(deltas.filter((t) => t === 'thinking_delta').length > 1)
  assert.is(deltas.at(-1), 'signature_delta')
  const stop = events.findIndex(([t, d]) => t === 'content_block_stop' && d.index === 0)
  const textStart = events.findIndex(([t, d]) => t === 'content_block_start' && d.index === 1)
  assert.ok(stop > 0 && textStart > stop, 'the thinking block closes before the text block opens')

  const msg = await client.messages
    .stream({
      model: 'sim-chat-thinking',
      max_tokens: 3000,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      messages: [{ role: 'user', content: 'Think first.' }],
    })
    .finalMessage()
  const block = msg.content[0] as Anthropic.ThinkingBlock
  assert.is(block.type, 'thinking')
  assert.ok(block.signature.length > 0)
})

test('thinking disabled on a family: the none member answers, without thinking', async () => {
  const { data: msg, response } = await client.messages
    .create({
      model: 'sim-chat',
      max_tokens: 32,
      thinking: { type: 'disabled' },
      messages: [{ role: 'user', content: 'Hi' }],
    })
    .withResponse()
  assert.is(response.headers.get('x-gateway-reasoning-effort'), 'none')
  assert.is(msg.model, 'sim-chat')
  assert.not.ok(msg.content.some((b) => b.type === 'thinking'))
})

test('budget_tokens not below max_tokens: 400 as Anthropic says it', async () => {
  await expectError(
    client.messages.create({
      model: 'sim-chat-thinking',
      max_tokens: 1024,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'Hi' }],
    }),
    Anthropic.BadRequestError,
    400,
    'invalid_request_error',
    '`max_tokens` must be greater than `thinking.budget_tokens`',
  )
})

// --- count_tokens ---------------------------------------------------------------------------

test('countTokens: the model server counts, and its count is what the model reports', async () => {
  const body = {
    model: 'sim-chat-instruct',
    system: 'Be brief.',
    tools: [weatherTool],
    messages: [{ role: 'user' as const, content: 'How many tokens is this prompt, with a tool?' }],
  }
  const { data: counted, response } = await client.messages.countTokens(body).withResponse()
  assert.is(response.headers.get('x-gateway-token-count'), 'tokenizer')
  assert.equal(Object.keys(counted), ['input_tokens'])
  const msg = await client.messages.create({ ...body, max_tokens: 8 })
  assert.is(msg.usage.input_tokens + (msg.usage.cache_read_input_tokens ?? 0), counted.input_tokens)
  const bare = await client.messages.countTokens({ model: 'sim-chat-instruct', messages: body.messages })
  assert.ok(bare.input_tokens < counted.input_tokens, 'system and tools count')
})

// --- keys and errors ------------------------------------------------------------------------

test('the key as x-api-key (the SDK default) and as Authorization: Bearer', async () => {
  const viaBearer = anthropic(null, { authToken: TEST_KEY })
  const msg = await viaBearer.messages.create({
    model: 'sim-chat-instruct',
    max_tokens: 8,
    messages: [{ role: 'user', content: 'Hi' }],
  })
  assert.is(msg.type, 'message')
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim-chat-instruct', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] }),
  })
  assert.is(res.status, 401)
  assert.equal(await res.json(), {
    type: 'error',
    error: { type: 'authentication_error', message: 'missing bearer token' },
  })
})

test('401, 403, 429, 400 and 404 reach the SDK as its own error classes', async () => {
  const hi = { model: 'sim-chat-instruct', max_tokens: 8, messages: [{ role: 'user' as const, content: 'Hi' }] }
  await expectError(
    anthropic('sk-wrong').messages.create(hi),
    Anthropic.AuthenticationError,
    401,
    'authentication_error',
    'invalid api key',
  )
  await expectError(
    anthropic('sk-broke').messages.create(hi),
    Anthropic.PermissionDeniedError,
    403,
    'permission_error',
    'api key term budget exhausted',
  )
  await expectError(
    anthropic('sk-slow').messages.create(hi),
    Anthropic.RateLimitError,
    429,
    'rate_limit_error',
    'token budget exceeded',
  )
  await expectError(
    client.messages.create({ ...hi, max_tokens: undefined } as never),
    Anthropic.BadRequestError,
    400,
    'invalid_request_error',
    "invalid request: body must have required property 'max_tokens'",
  )
  await expectError(
    client.messages.create({ ...hi, model: 'no-such-model' }),
    Anthropic.NotFoundError,
    404,
    'not_found_error',
    'model no-such-model is not registered',
  )
  await expectError(
    client.messages.create({
      ...hi,
      messages: [
        {
          role: 'user',
          content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } }],
        },
      ],
    }),
    Anthropic.BadRequestError,
    400,
    'invalid_request_error',
  )
})

test('a body over 32 MiB: 413 request_too_large', async () => {
  const big = JSON.stringify({
    model: 'sim-chat-instruct',
    max_tokens: 8,
    messages: [{ role: 'user', content: 'x'.repeat(32 * 1024 * 1024) }],
  })
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' },
    body: big,
  })
  assert.is(res.status, 413)
  const body = (await res.json()) as { type: string; error: { type: string } }
  assert.is(body.type, 'error')
  assert.is(body.error.type, 'request_too_large')
})

// --- records --------------------------------------------------------------------------------

async function recordsOf(keyId: string): Promise<UsageRecord[]> {
  await gw.generation().records.flush()
  return (await gw.generation().records.list({ from: 0, to: Date.now() + 1, keyId }, 100)) as UsageRecord[]
}

test('one record per request with its tokens, streamed or not', async () => {
  const msg = await anthropic('sk-rec').messages.create({
    model: 'sim-chat-instruct',
    max_tokens: 16,
    messages: [{ role: 'user', content: 'Record me' }],
  })
  const [r] = await recordsOf('rec')
  assert.is((await recordsOf('rec')).length, 1)
  assert.is(r!.route, 'messages')
  assert.is(r!.status, 200)
  assert.is(r!.usageSource, 'reported')
  assert.is(r!.promptTokens, msg.usage.input_tokens + (msg.usage.cache_read_input_tokens ?? 0))
  assert.is(r!.completionTokens, msg.usage.output_tokens)

  const streamed = await anthropic('sk-rec-stream')
    .messages.stream({
      model: 'sim-chat-instruct',
      max_tokens: 16,
      messages: [{ role: 'user', content: 'Record me too' }],
    })
    .finalMessage()
  const records = await recordsOf('rec-stream')
  assert.is(records.length, 1)
  assert.is(records[0]!.completionTokens, streamed.usage.output_tokens)
  assert.ok(records[0]!.promptTokens > 0)
})

test.run()
