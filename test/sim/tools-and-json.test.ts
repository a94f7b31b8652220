import { Ajv } from 'ajv'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { RunningSimulator } from '../../sim/index.js'
import { chatBody, chunksOf, postJson, postStream, startTestSimulator, testFormats } from './helpers.js'

const tools = suite<{ sim: RunningSimulator }>('sim: tools and structured output')

tools.before(async (ctx) => {
  ctx.sim = await startTestSimulator()
})
tools.after(async (ctx) => {
  await ctx.sim.close()
})

const weatherParameters = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 2 },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1, maximum: 7 },
  },
  required: ['city', 'unit'],
  additionalProperties: false,
} as const

const toolList = [
  {
    type: 'function',
    function: { name: 'get_weather', description: 'Weather by city', parameters: weatherParameters },
  },
  {
    type: 'function',
    function: {
      name: 'get_time',
      parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
    },
  },
]

const ajv = new Ajv({ allErrors: true, strict: false, formats: testFormats })

tools('a message naming a tool gets one call whose arguments satisfy the schema', async ({ sim }) => {
  const { body } = await postJson(
    sim,
    '/v1/chat/completions',
    chatBody('What does get_weather say for Paris?', { tools: toolList }),
  )
  const choice = body.choices[0]
  assert.ok(choice)
  assert.is(choice.finish_reason, 'tool_calls')
  assert.is(choice.message.content, null)
  assert.is(choice.message.tool_calls.length, 1)
  const call = choice.message.tool_calls[0]
  assert.ok(call)
  assert.match(call.id ?? '', /^call_[0-9a-f]+$/)
  assert.is(call.type, 'function')
  assert.is(call.function.name, 'get_weather')
  const args: unknown = JSON.parse(call.function.arguments)
  assert.ok(ajv.validate(weatherParameters, args), ajv.errorsText())
})

tools('"tool" in the message picks the first tool; a plain message gets text', async ({ sim }) => {
  const withWord = await postJson(sim, '/v1/chat/completions', chatBody('Use a tool for this.', { tools: toolList }))
  assert.is(withWord.body.choices[0]?.message.tool_calls[0]?.function.name, 'get_weather')
  const plain = await postJson(sim, '/v1/chat/completions', chatBody('Just chat with me.', { tools: toolList }))
  assert.is(plain.body.choices[0]?.finish_reason, 'stop')
  assert.equal(plain.body.choices[0]?.message.tool_calls, [])
  assert.type(plain.body.choices[0]?.message.content, 'string')
})

tools('tool_choice: required forces a call, named gives finish_reason stop, none gives text', async ({ sim }) => {
  const required = await postJson(
    sim,
    '/v1/chat/completions',
    chatBody('Hello there.', { tools: toolList, tool_choice: 'required' }),
  )
  assert.is(required.body.choices[0]?.finish_reason, 'tool_calls')
  const named = await postJson(
    sim,
    '/v1/chat/completions',
    chatBody('Hello there.', { tools: toolList, tool_choice: { type: 'function', function: { name: 'get_time' } } }),
  )
  assert.is(named.body.choices[0]?.finish_reason, 'stop')
  const call = named.body.choices[0]?.message.tool_calls[0]
  assert.is(call?.function.name, 'get_time')
  assert.type((JSON.parse(call?.function.arguments ?? '{}') as { zone: unknown }).zone, 'string')
  const none = await postJson(
    sim,
    '/v1/chat/completions',
    chatBody('Use get_weather.', { tools: toolList, tool_choice: 'none' }),
  )
  assert.equal(none.body.choices[0]?.message.tool_calls, [])
})

tools('a tool result as last message is answered with text quoting it', async ({ sim }) => {
  const result = '{"city":"Paris","temperature_c":21,"sky":"clear","wind_kmh":7}'
  const { body } = await postJson(sim, '/v1/chat/completions', {
    model: 'sim-instruct-8b',
    tools: toolList,
    messages: [
      { role: 'user', content: 'What does get_weather say for Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: result },
    ],
  })
  assert.is(body.choices[0]?.finish_reason, 'stop')
  assert.ok(body.choices[0]?.message.content?.includes(result.slice(0, 40)))
})

tools('streamed tool call: id and name first, then argument pieces that join to valid JSON', async ({ sim }) => {
  const res = await postStream(
    sim,
    '/v1/chat/completions',
    chatBody('Call get_weather for Oslo.', { tools: toolList, stream: true }),
  )
  const calls = chunksOf(res.events).flatMap((c) => c.choices[0]?.delta.tool_calls ?? [])
  assert.ok(calls.length >= 2)
  assert.is(calls[0]?.function.name, 'get_weather')
  assert.match(calls[0]?.id ?? '', /^call_/)
  const args = calls.map((c) => c.function.arguments).join('')
  assert.ok(ajv.validate(weatherParameters, JSON.parse(args)), ajv.errorsText())
  const finish = chunksOf(res.events).find((c) => c.choices[0]?.finish_reason)
  assert.is(finish?.choices[0]?.finish_reason, 'tool_calls')
})

const answerSchema = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 12, maxLength: 40 },
    kind: { const: 'report' },
    score: { type: 'number', minimum: 0.5, maximum: 0.75 },
    count: { type: 'integer', exclusiveMinimum: 10, maximum: 11 },
    published: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, minItems: 3 },
    author: {
      type: 'object',
      properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } },
      required: ['name', 'email'],
      additionalProperties: false,
    },
    note: { anyOf: [{ type: 'null' }, { type: 'string' }] },
    ref: { $ref: '#/$defs/point' },
  },
  required: ['title', 'kind', 'score', 'count', 'published', 'tags', 'author', 'note', 'ref'],
  additionalProperties: false,
  $defs: {
    point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'] },
  },
} as const

tools('response_format json_schema: the content parses and satisfies the schema', async ({ sim }) => {
  const { body } = await postJson(
    sim,
    '/v1/chat/completions',
    chatBody('Write the report.', {
      response_format: { type: 'json_schema', json_schema: { name: 'report', schema: answerSchema } },
    }),
  )
  const content = body.choices[0]?.message.content ?? ''
  const value: unknown = JSON.parse(content)
  assert.ok(ajv.validate(answerSchema, value), ajv.errorsText())
  assert.is(body.choices[0]?.finish_reason, 'stop')
})

tools('response_format json_object: a JSON object', async ({ sim }) => {
  const { body } = await postJson(
    sim,
    '/v1/chat/completions',
    chatBody('Answer in JSON.', { response_format: { type: 'json_object' } }),
  )
  const value: unknown = JSON.parse(body.choices[0]?.message.content ?? '')
  assert.type(value, 'object')
  assert.not.ok(Array.isArray(value))
})

const addOnTools = [
  {
    type: 'function',
    function: {
      name: 'web_search',
      parameters: {
        type: 'object',
        properties: { query: { type: 'string' }, count: { type: 'integer', minimum: 1 } },
        required: ['query'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'generate_image',
      parameters: {
        type: 'object',
        properties: { prompt: { type: 'string', description: 'what to draw' } },
        required: ['prompt'],
      },
    },
  },
  ...toolList,
]

tools(
  "a gateway add-on's tool is called when asked to search or draw, with the user's words as its argument",
  async ({ sim }) => {
    const call = async (text: string) =>
      (await postJson(sim, '/v1/chat/completions', chatBody(text, { tools: addOnTools }))).body.choices[0]
    const search = await call('Please search for tide tables in Brest')
    assert.is(search.finish_reason, 'tool_calls')
    assert.is(search.message.tool_calls[0].function.name, 'web_search')
    assert.equal(JSON.parse(search.message.tool_calls[0].function.arguments), {
      query: 'Please search for tide tables in Brest',
    })
    const draw = await call('draw a heron at dawn')
    assert.is(draw.message.tool_calls[0].function.name, 'generate_image')
    assert.equal(JSON.parse(draw.message.tool_calls[0].function.arguments), { prompt: 'draw a heron at dawn' })
    const plain = await call('what is a heron?')
    assert.is(plain.finish_reason, 'stop', 'no search or draw asked: an answer')
    assert.is(typeof plain.message.content, 'string')
    // A tool's name still wins over the add-on intent.
    assert.is((await call('search with get_time for Paris')).message.tool_calls[0].function.name, 'get_time')
  },
)

tools(
  'an add-on intent without the tool offered is an answer; a constrained argument gets generated JSON',
  async ({ sim }) => {
    const none = (
      await postJson(sim, '/v1/chat/completions', chatBody('Please search for tide tables', { tools: toolList }))
    ).body.choices[0]
    assert.is(none.finish_reason, 'stop')
    const bounded = [
      {
        type: 'function',
        function: {
          name: 'web_search',
          parameters: { type: 'object', properties: { query: { type: 'string', maxLength: 5 } }, required: ['query'] },
        },
      },
    ]
    const call = (
      await postJson(sim, '/v1/chat/completions', chatBody('Please search for tide tables', { tools: bounded }))
    ).body.choices[0]
    const args = JSON.parse(call.message.tool_calls[0].function.arguments) as { query: string }
    assert.ok(args.query.length <= 5, 'the schema holds: not the user words')
  },
)

tools('after a tool result the model answers quoting it', async ({ sim }) => {
  const body = {
    ...chatBody('Please search for tide tables', { tools: addOnTools }),
    messages: [
      { role: 'user', content: 'Please search for tide tables' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'web_search', arguments: '{"query":"tide tables"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"results":[{"title":"Tides"}]}' },
    ],
  }
  const choice = (await postJson(sim, '/v1/chat/completions', body)).body.choices[0]
  assert.is(choice.finish_reason, 'stop')
  assert.match(choice.message.content ?? '', /^The tool returned: \{"results":\[\{"title":"Tides"\}\]\}/)
})

tools.run()
