/**
 * POST /v1/responses end to end, with the official `openai` SDK over a real socket, the
 * simulator behind the gateway: created whole and streamed (both SDK ways), function tool round
 * trips, previous_response_id, structured output, reasoning, length limits, stored responses
 * per key, errors, a cut stream, and the 32 MiB body limit.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import OpenAI from 'openai'
import type { ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { keysFile } from '../support/deployment-files.js'

const test = suite('e2e POST /v1/responses')
let gw: TestGateway
let client: OpenAI

const keys = keysFile({}, [
  { id: 'other', group: 'demo', secret: 'sk-other' },
  { id: 'broke', group: 'demo', secret: 'sk-broke', budget: { amount: 0, term: 'month' } },
  { id: 'slow', group: 'demo', secret: 'sk-slow', tokens_per_minute: 1 },
  { id: 'rec', group: 'demo', secret: 'sk-rec' },
])

test.before(async () => {
  gw = await startTestGateway({ files: { 'config/keys.yaml': keys } })
  client = gw.openai()
})
test.after(() => gw.close())

const weather = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  strict: true,
}

async function refusal(call: () => Promise<unknown>): Promise<[number | undefined, string]> {
  try {
    await call()
  } catch (err) {
    const e = err as InstanceType<typeof OpenAI.APIError>
    return [e.status, (e.error as { message?: string } | undefined)?.message ?? e.message]
  }
  return [200, 'served']
}

test('create: a Response with output_text, usage and the request id header', async () => {
  const { data: r, response } = await client.responses
    .create({ model: 'sim-chat-instruct', input: 'Hello there', max_output_tokens: 40 })
    .withResponse()
  assert.match(r.id, /^resp_/)
  assert.is(r.object, 'response')
  assert.ok(['completed', 'incomplete'].includes(r.status!))
  assert.is(r.output[0]!.type, 'message')
  assert.ok(r.output_text.length > 0)
  assert.ok(r.usage!.input_tokens > 0 && r.usage!.output_tokens > 0)
  assert.is(r.usage!.total_tokens, r.usage!.input_tokens + r.usage!.output_tokens)
  assert.is(r.max_output_tokens, 40)
  assert.ok(response.headers.get('x-gateway-request-id'))
})

test('stream: true: the Responses events in order, sequence numbers from 0, text deltas adding up', async () => {
  const stream = await client.responses.create({ model: 'sim-chat-instruct', input: 'Tell me something', stream: true })
  const events: ResponseStreamEvent[] = []
  for await (const e of stream) events.push(e)
  assert.equal(
    events.map((e) => e.sequence_number),
    events.map((_, i) => i),
  )
  const types = events.map((e) => e.type)
  assert.equal(types.slice(0, 4), [
    'response.created',
    'response.in_progress',
    'response.output_item.added',
    'response.content_part.added',
  ])
  assert.equal(types.slice(-4), [
    'response.output_text.done',
    'response.content_part.done',
    'response.output_item.done',
    'response.completed',
  ])
  const text = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : [])).join('')
  const done = events[events.length - 1] as Extract<ResponseStreamEvent, { type: 'response.completed' }>
  assert.is((done.response.output[0] as { content: { text: string }[] }).content[0]!.text, text)
  assert.ok(done.response.usage!.output_tokens > 0)
})

test('a streamed request leaves one record with the tokens the server reported, and no text', async () => {
  const final = await gw
    .openai('sk-rec')
    .responses.stream({ model: 'sim-chat-instruct', input: 'Count my tokens' })
    .finalResponse()
  await gw.generation().records.flush()
  const records = await gw.generation().records.list({ from: 0, to: Date.now() + 1, keyId: 'rec' }, 10)
  assert.is(records.length, 1)
  const r = records[0]!
  assert.equal([r.route, r.usageSource, r.status, r.outcome], ['responses', 'reported', 200, 'done'])
  assert.equal([r.promptTokens, r.completionTokens], [final.usage!.input_tokens, final.usage!.output_tokens])
  assert.not.match(JSON.stringify(r), /Count my tokens/)
})

test('responses.stream(): deltas as they come, and finalResponse with output_text', async () => {
  const stream = client.responses.stream({ model: 'sim-chat-instruct', input: 'Tell me more' })
  let deltas = ''
  stream.on('response.output_text.delta', (e) => void (deltas += e.delta))
  const final = await stream.finalResponse()
  assert.is(final.status, 'completed')
  assert.is(final.output_text, deltas)
})

test('a function tool round trip with previous_response_id, and again by sending the items back', async () => {
  const first = await client.responses.create({
    model: 'sim-chat-instruct',
    input: 'What is the weather in Paris? Use the get_weather tool.',
    tools: [weather],
  })
  const call = first.output.find((o) => o.type === 'function_call')
  assert.ok(call && call.type === 'function_call', 'a function_call item')
  assert.is(call.name, 'get_weather')
  assert.type(JSON.parse(call.arguments).city, 'string')
  assert.is(call.status, 'completed')
  const output = { type: 'function_call_output' as const, call_id: call.call_id, output: '{"temperature_c": 21}' }
  const chained = await client.responses.create({
    model: 'sim-chat-instruct',
    previous_response_id: first.id,
    input: [output],
    tools: [weather],
  })
  assert.match(chained.output_text, /^The tool returned: \{"temperature_c": 21\}/)
  assert.is(chained.previous_response_id, first.id)
  const sentBack = await client.responses.create({
    model: 'sim-chat-instruct',
    store: false,
    tools: [weather],
    input: [
      { role: 'user', content: 'What is the weather in Paris? Use the get_weather tool.' },
      ...(first.output as ResponseInputItem[]),
      output,
    ],
  })
  assert.match(sentBack.output_text, /^The tool returned: \{"temperature_c": 21\}/)
  assert.is((sentBack as { store?: boolean }).store, false)
})

test('streamed tool calls: function_call_arguments deltas and done', async () => {
  const stream = client.responses.stream({
    model: 'sim-chat-instruct',
    input: 'call a tool',
    tools: [weather],
    tool_choice: 'required',
  })
  let args = ''
  stream.on('response.function_call_arguments.delta', (e) => void (args += e.delta))
  const final = await stream.finalResponse()
  const call = final.output.find((o) => o.type === 'function_call')!
  assert.is(call.type === 'function_call' && call.arguments, args)
})

test('previous_response_id continues a conversation: the first turn is in the second prompt', async () => {
  const first = await client.responses.create({
    model: 'sim-chat-instruct',
    input: 'My name is Ada.',
    instructions: 'You are terse.',
  })
  const second = await client.responses.create({
    model: 'sim-chat-instruct',
    input: 'What is my name?',
    previous_response_id: first.id,
  })
  const alone = await client.responses.create({ model: 'sim-chat-instruct', input: 'What is my name?' })
  // The second prompt holds the first question and answer (and not the first's instructions).
  assert.ok(
    second.usage!.input_tokens >= alone.usage!.input_tokens + first.usage!.output_tokens,
    `${second.usage!.input_tokens} vs ${alone.usage!.input_tokens} + ${first.usage!.output_tokens}`,
  )
  assert.is(second.instructions, null)
  const items = await client.responses.inputItems.list(second.id, { order: 'asc' })
  assert.equal(
    items.data.map((i) => i.type),
    ['message', 'message', 'message'],
  )
  const unknown = await refusal(() =>
    client.responses.create({ model: 'sim-chat-instruct', input: 'x', previous_response_id: 'resp_' + '0'.repeat(48) }),
  )
  assert.equal(unknown, [404, `Previous response with id 'resp_${'0'.repeat(48)}' not found.`])
})

test('text.format json_schema: the answer parses and satisfies the schema', async () => {
  const r = await client.responses.create({
    model: 'sim-chat-instruct',
    input: 'Extract the person.',
    text: {
      format: {
        type: 'json_schema',
        name: 'person',
        strict: true,
        schema: {
          type: 'object',
          properties: { name: { type: 'string' }, age: { type: 'integer' } },
          required: ['name', 'age'],
          additionalProperties: false,
        },
      },
    },
  })
  const value = JSON.parse(r.output_text) as { name: unknown; age: unknown }
  assert.type(value.name, 'string')
  assert.ok(Number.isInteger(value.age))
  assert.equal(r.text?.format, {
    type: 'json_schema',
    name: 'person',
    strict: true,
    schema: {
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'integer' } },
      required: ['name', 'age'],
      additionalProperties: false,
    },
  })
})

test('reasoning.effort on a family: the thinking member answers, a reasoning item first, the effort header', async () => {
  const { data: r, response } = await client.responses
    .create({ model: 'sim-chat', input: 'Think about it.', reasoning: { effort: 'high' }, max_output_tokens: 2000 })
    .withResponse()
  assert.is(response.headers.get('x-gateway-reasoning-effort'), 'high')
  assert.is(response.headers.get('x-gateway-model-variant'), 'sim-chat')
  assert.is(r.output[0]!.type, 'reasoning')
  const reasoning = r.output[0] as { summary: { type: string; text: string }[] }
  assert.is(reasoning.summary[0]!.type, 'summary_text')
  assert.ok(reasoning.summary[0]!.text.length > 0)
  assert.equal(r.reasoning, { effort: 'high', summary: null })
  assert.equal(
    await refusal(() =>
      client.responses.create({ model: 'sim-chat', input: 'x', reasoning: { effort: 'extreme' as 'high' } }),
    ),
    [400, 'reasoning effort extreme is not one of none, low, medium or high'],
  )
})

test('max_output_tokens reached: status incomplete, reason max_output_tokens', async () => {
  const r = await client.responses.create({
    model: 'sim-chat-instruct',
    input: 'Write a long story.',
    max_output_tokens: 1,
  })
  assert.is(r.status, 'incomplete')
  assert.equal(r.incomplete_details, { reason: 'max_output_tokens' })
  assert.is(r.usage!.output_tokens, 1)
})

test('retrieve, input items and delete: the owner only; another key gets 404 as for a missing id', async () => {
  const made = await client.responses.create({ model: 'sim-chat-instruct', input: 'Keep this.' })
  const got = await client.responses.retrieve(made.id)
  assert.is(got.id, made.id)
  assert.is(got.output_text, made.output_text)
  const other = gw.openai('sk-other')
  assert.equal(await refusal(() => other.responses.retrieve(made.id)), [
    404,
    `Response with id '${made.id}' not found.`,
  ])
  assert.equal(await refusal(() => other.responses.delete(made.id)), [404, `Response with id '${made.id}' not found.`])
  assert.equal(
    await refusal(() =>
      other.responses.create({ model: 'sim-chat-instruct', input: 'x', previous_response_id: made.id }),
    ),
    [404, `Previous response with id '${made.id}' not found.`],
  )
  const items = await client.responses.inputItems.list(made.id)
  assert.equal(
    items.data.map((i) => i.type === 'message' && i.role),
    ['user'],
  )
  const res = await fetch(`${gw.url}/v1/responses/${made.id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${TEST_KEY}` },
  })
  assert.equal(await res.json(), { id: made.id, object: 'response', deleted: true })
  assert.equal(await refusal(() => client.responses.retrieve(made.id)), [
    404,
    `Response with id '${made.id}' not found.`,
  ])
  const unstored = await client.responses.create({ model: 'sim-chat-instruct', input: 'Forget this.', store: false })
  assert.equal((await refusal(() => client.responses.retrieve(unstored.id)))[0], 404)
})

test('errors: 400 in the OpenAI shape for bad input, 403 for an exhausted budget, 429 per minute, 401 without a key', async () => {
  const res = await fetch(`${gw.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim-chat-instruct', input: 'x', tools: [{ type: 'web_search' }] }),
  })
  assert.is(res.status, 400)
  assert.equal(await res.json(), {
    error: {
      message: "tools[0]: tool type 'web_search' is not supported; only function tools are",
      type: 'gateway_error',
    },
  })
  assert.equal(
    await refusal(() =>
      client.responses.create({
        model: 'sim-chat-instruct',
        input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-abc', detail: 'auto' }] }],
      }),
    ),
    [
      400,
      'input[0].content[0]: input_image.file_id is not supported; send image_url (a base64 data URL or a public https:// URL)',
    ],
  )
  assert.equal(
    (await refusal(() => client.responses.create({ model: 'sim-chat-instruct', input: 42 as unknown as string })))[0],
    400,
  )
  assert.equal(await refusal(() => client.responses.create({ model: 'sim-nope', input: 'x' })), [
    404,
    'model sim-nope is not registered',
  ])
  assert.equal(
    await refusal(() => gw.openai('sk-broke').responses.create({ model: 'sim-chat-instruct', input: 'x' })),
    [403, 'api key term budget exhausted'],
  )
  assert.equal(await refusal(() => gw.openai('sk-slow').responses.create({ model: 'sim-chat-instruct', input: 'x' })), [
    429,
    'token budget exceeded',
  ])
  assert.equal(
    (await refusal(() => gw.openai('sk-nobody').responses.create({ model: 'sim-chat-instruct', input: 'x' })))[0],
    401,
  )
})

test('a stream cut upstream ends with response.failed and the error event: the SDK raises', async () => {
  const cut = { headers: { 'x-sim-cut-after': '3' } }
  const stream = await client.responses.create(
    { model: 'sim-chat-instruct', input: 'Tell me a long story.', stream: true, max_output_tokens: 200 },
    cut,
  )
  const seen: string[] = []
  let raised: unknown
  try {
    for await (const e of stream) seen.push(e.type)
  } catch (err) {
    raised = err
  }
  assert.instance(raised, OpenAI.APIError)
  assert.match((raised as Error).message, /upstream/)
  assert.is(seen[seen.length - 1], 'response.failed')
  assert.not.ok(seen.includes('response.completed'))
  const helper = client.responses.stream(
    { model: 'sim-chat-instruct', input: 'Tell me a long story.', max_output_tokens: 200 },
    cut,
  )
  const final = await helper.finalResponse().then(
    () => 'resolved',
    (err: unknown) => err,
  )
  assert.instance(final, OpenAI.APIError)
  // The raw wire: named events, the error event last, no [DONE].
  const res = await fetch(`${gw.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json', 'x-sim-cut-after': '3' },
    body: JSON.stringify({
      model: 'sim-chat-instruct',
      input: 'Tell me a long story.',
      stream: true,
      max_output_tokens: 200,
    }),
  })
  const text = await res.text()
  assert.ok(text.startsWith('event: response.created\ndata: '))
  const last = text.trim().split('\n\n').pop()!
  assert.match(last, /^event: error\ndata: \{"type":"error","code":"upstream_failed"/)
  assert.not.match(text, /\[DONE\]/)
})

test('the body limit is 32 MiB here (64 MiB elsewhere): 413 beyond it', async () => {
  const big = JSON.stringify({ model: 'sim-chat-instruct', input: 'x'.repeat(33 * 1024 * 1024) })
  const res = await fetch(`${gw.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: big,
  })
  assert.is(res.status, 413)
  assert.equal(await res.json(), { error: { message: 'request body too large', type: 'gateway_error' } })
})

test.run()
