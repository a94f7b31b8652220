import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { GatewayError } from '../../../kernel/contract/errors.js'
import { messagesToChat, reasoningLevel } from '../../../protocols/anthropic/request-to-chat.js'
import type { MessagesRequest } from '../../../protocols/anthropic/messages.js'

const test = suite('protocols/anthropic: a Messages request as a chat completion')

const base = { model: 'm', max_tokens: 100 }

function refusal(request: MessagesRequest): string {
  try {
    messagesToChat(request)
  } catch (err) {
    assert.instance(err, GatewayError)
    assert.is((err as GatewayError).status, 400)
    return (err as GatewayError).message
  }
  assert.unreachable('expected a 400')
  return ''
}

test('the envelope: model, max_tokens, stop_sequences, sampling; metadata dropped', () => {
  const body = messagesToChat({
    ...base,
    messages: [{ role: 'user', content: 'Hi' }],
    stop_sequences: ['END'],
    temperature: 0.5,
    top_p: 0.9,
    top_k: 40,
    metadata: { user_id: 'u' },
  })
  assert.equal(body, {
    model: 'm',
    max_tokens: 100,
    stop: ['END'],
    temperature: 0.5,
    top_p: 0.9,
    top_k: 40,
    messages: [{ role: 'user', content: 'Hi' }],
  })
})

test('system as a string or text blocks becomes the first message', () => {
  assert.equal(
    messagesToChat({ ...base, system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] }).messages[0],
    { role: 'system', content: 'Be brief.' },
  )
  assert.equal(
    messagesToChat({
      ...base,
      system: [
        { type: 'text', text: 'A' },
        { type: 'text', text: 'B' },
      ],
      messages: [{ role: 'user', content: 'Hi' }],
    }).messages[0],
    { role: 'system', content: 'A\nB' },
  )
})

test('user blocks: text and images (base64 → data URL, url → the https URL)', () => {
  const body = messagesToChat({
    ...base,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
        ],
      },
    ],
  })
  assert.equal(body.messages, [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Look' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
      ],
    },
  ])
})

test('a tool round trip: tool_use → assistant tool_calls; tool_result → tool messages before the rest of the turn', () => {
  const body = messagesToChat({
    ...base,
    messages: [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny' },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_2',
            content: [
              { type: 'text', text: 'Rain' },
              { type: 'text', text: '12 C' },
            ],
          },
          { type: 'text', text: 'And tomorrow?' },
        ],
      },
    ],
  })
  assert.equal(body.messages.slice(1), [
    {
      role: 'assistant',
      content: 'Checking.',
      tool_calls: [
        { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { id: 'toolu_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'toolu_1', content: 'Sunny' },
    { role: 'tool', tool_call_id: 'toolu_2', content: 'Rain\n12 C' },
    { role: 'user', content: [{ type: 'text', text: 'And tomorrow?' }] },
  ])
})

test('an assistant turn of tool calls alone has null content; an image in a tool result follows as a user turn', () => {
  const body = messagesToChat({
    ...base,
    messages: [
      { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'shot', input: {} }] },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 't',
            content: [{ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'BBBB' } }],
          },
        ],
      },
    ],
  })
  assert.equal(body.messages, [
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 't', type: 'function', function: { name: 'shot', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 't', content: '' },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/jpeg;base64,BBBB' } }] },
  ])
})

test('tools and tool_choice: auto is left out, any → required, tool → a named function, none → none', () => {
  const tools = [{ name: 'f', description: 'does f', input_schema: { type: 'object', properties: {} } }]
  const messages: MessagesRequest['messages'] = [{ role: 'user', content: 'x' }]
  const at = (tool_choice: MessagesRequest['tool_choice']) => messagesToChat({ ...base, messages, tools, tool_choice })
  assert.equal(at(undefined).tools, [
    {
      type: 'function',
      function: { name: 'f', description: 'does f', parameters: { type: 'object', properties: {} } },
    },
  ])
  assert.is(at({ type: 'auto' }).tool_choice, undefined)
  assert.is(at({ type: 'any' }).tool_choice, 'required')
  assert.equal(at({ type: 'tool', name: 'f' }).tool_choice, { type: 'function', function: { name: 'f' } })
  assert.is(at({ type: 'none' }).tool_choice, 'none')
  assert.is(at({ type: 'auto', disable_parallel_tool_use: true }).parallel_tool_calls, false)
})

test('thinking and effort as reasoning levels', () => {
  assert.is(reasoningLevel({}), undefined)
  assert.is(reasoningLevel({ thinking: { type: 'disabled' } }), 'none')
  assert.is(reasoningLevel({ thinking: { type: 'enabled', budget_tokens: 1024 } }), 'low')
  assert.is(reasoningLevel({ thinking: { type: 'enabled', budget_tokens: 2048 } }), 'low')
  assert.is(reasoningLevel({ thinking: { type: 'enabled', budget_tokens: 2049 } }), 'medium')
  assert.is(reasoningLevel({ thinking: { type: 'enabled', budget_tokens: 8192 } }), 'medium')
  assert.is(reasoningLevel({ thinking: { type: 'enabled', budget_tokens: 8193 } }), 'high')
  assert.is(reasoningLevel({ thinking: { type: 'adaptive' }, output_config: { effort: 'max' } }), 'max')
  assert.is(
    reasoningLevel({ thinking: { type: 'disabled' }, output_config: { effort: 'high' } }),
    'none',
    'thinking decides when it says',
  )
  const body = messagesToChat({
    ...base,
    max_tokens: 4000,
    thinking: { type: 'enabled', budget_tokens: 3000 },
    messages: [{ role: 'user', content: 'x' }],
  })
  assert.is(body.reasoning_effort, 'medium')
  assert.is(
    messagesToChat({ ...base, messages: [{ role: 'user', content: 'x' }] }).reasoning_effort,
    undefined,
    'omitted: the model default',
  )
})

test('stream asks for usage on every chunk; output_config.format is a json_schema response_format', () => {
  const body = messagesToChat({
    ...base,
    stream: true,
    output_config: { format: { type: 'json_schema', schema: { type: 'object' } } },
    messages: [{ role: 'user', content: 'x' }],
  })
  assert.is(body.stream, true)
  assert.equal(body.stream_options, { include_usage: true, continuous_usage_stats: true })
  assert.equal(body.response_format, {
    type: 'json_schema',
    json_schema: { name: 'output', schema: { type: 'object' }, strict: true },
  })
})

test('count mode: only what the prompt count depends on', () => {
  const body = messagesToChat(
    {
      model: 'm',
      system: 's',
      messages: [{ role: 'user', content: 'x' }],
      tools: [{ name: 'f', input_schema: {} }],
      stream: true,
      thinking: { type: 'disabled' },
    },
    'count',
  )
  assert.equal(Object.keys(body).sort(), ['messages', 'model', 'tools'])
})

test('what cannot be carried is refused with its path', () => {
  const user = (content: unknown): MessagesRequest => ({
    ...base,
    messages: [{ role: 'user', content: content as never }],
  })
  assert.match(
    refusal(user([{ type: 'document', source: {} }])),
    /^messages\.0\.content\.0\.type: document blocks are not supported/,
  )
  assert.is(
    refusal(user([{ type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: 'x' } }])),
    "messages.0.content.0.source.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'",
  )
  assert.is(
    refusal(user([{ type: 'image', source: { type: 'url', url: 'http://example.com/a.png' } }])),
    'messages.0.content.0.source.url must be a public https:// URL',
  )
  assert.is(
    refusal(user([{ type: 'image', source: { type: 'url', url: 'https://10.0.0.1/a.png' } }])),
    'messages.0.content.0.source.url must be a public https:// URL',
  )
  assert.is(
    refusal(user([{ type: 'image', source: { type: 'file', file_id: 'f' } }])),
    "messages.0.content.0.source.type: Input should be 'base64' or 'url'",
  )
  assert.is(refusal(user([{ type: 'text' }])), 'messages.0.content.0.text: Field required')
  assert.match(
    refusal({
      ...base,
      messages: [{ role: 'user', content: 'x' }],
      tools: [{ name: 'web_search', type: 'web_search_20250305' }],
    }),
    /^tools\.0\.type: web_search_20250305 is a server tool/,
  )
  assert.is(
    refusal({ ...base, messages: [{ role: 'user', content: 'x' }], tools: [{ name: 'f' }] }),
    'tools.0.input_schema: Field required',
  )
  assert.is(
    refusal({
      ...base,
      max_tokens: 2000,
      thinking: { type: 'enabled', budget_tokens: 2000 },
      messages: [{ role: 'user', content: 'x' }],
    }),
    '`max_tokens` must be greater than `thinking.budget_tokens`',
  )
})

test.run()
