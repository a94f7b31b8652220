/** Responses request → chat body: pure, each field on its own. */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { ownInput, toChatBody } from '../../../protocols/openai/responses-request.js'
import type { InputItem, ResponsesRequest } from '../../../protocols/openai/responses-types.js'
import { GatewayError } from '../../../kernel/contract/errors.js'

const test = suite('protocols openai: Responses request → chat body')

const chat = (req: ResponsesRequest, history: InputItem[] = []) => toChatBody(req, history, ownInput(req))

function refused(req: ResponsesRequest, pattern: RegExp): void {
  try {
    chat(req)
    assert.unreachable('accepted')
  } catch (err) {
    assert.instance(err, GatewayError)
    assert.is((err as GatewayError).status, 400)
    assert.match((err as GatewayError).message, pattern)
  }
}

test('a string input is one user message; instructions come first as the system turn', () => {
  const body = chat({ model: 'm', input: 'hi', instructions: 'Be brief.' })
  assert.equal(body, {
    model: 'm',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
    ],
  })
})

test('input is required', () => {
  refused({ model: 'm' }, /Missing required parameter: 'input'/)
})

test('message items: roles (developer as system), text and image parts, assistant output_text joined', () => {
  const body = chat({
    input: [
      { role: 'developer', content: 'rules' },
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'look' },
          { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'high' },
        ],
      },
      {
        type: 'message',
        role: 'assistant',
        content: [
          { type: 'output_text', text: 'a ' },
          { type: 'output_text', text: 'cat' },
        ],
      },
    ],
  })
  assert.equal(body.messages, [
    { role: 'system', content: 'rules' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'high' } },
      ],
    },
    { role: 'assistant', content: 'a cat' },
  ])
})

test('an image by file_id, a file part or an unknown role is a 400 naming it', () => {
  refused(
    { input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }] },
    /file_id is not supported/,
  )
  refused(
    { input: [{ role: 'user', content: [{ type: 'input_file', file_data: 'x' }] }] },
    /'input_file' is not supported/,
  )
  refused({ input: [{ role: 'critic' as 'user', content: 'x' }] }, /role 'critic'/)
  refused(
    { input: [{ type: 'web_search_call', id: 'ws_1' } as unknown as InputItem] },
    /input item type 'web_search_call' is not supported/,
  )
})

test('function_call items become one assistant turn of tool calls; outputs become tool messages; reasoning is dropped', () => {
  const body = chat({
    input: [
      { role: 'user', content: 'weather in Paris and Rome?' },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'thinking' }] },
      { type: 'function_call', call_id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call', call_id: 'c2', name: 'get_weather', arguments: '{"city":"Rome"}' },
      { type: 'function_call_output', call_id: 'c1', output: '21C' },
      { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: '25C' }] },
    ],
  })
  assert.equal(body.messages, [
    { role: 'user', content: 'weather in Paris and Rome?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { id: 'c2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'c1', content: '21C' },
    { role: 'tool', tool_call_id: 'c2', content: '25C' },
  ])
})

test('history (a previous response) comes before the own input, after the instructions', () => {
  const history: InputItem[] = [
    { type: 'message', id: 'msg_a', role: 'user', content: 'first' },
    { type: 'message', id: 'msg_b', role: 'assistant', content: [{ type: 'output_text', text: 'one' }] },
  ]
  const body = chat({ input: 'second', instructions: 'sys' }, history)
  assert.equal(
    body.messages.map((m) => [m.role, m.content]),
    [
      ['system', 'sys'],
      ['user', 'first'],
      ['assistant', 'one'],
      ['user', 'second'],
    ],
  )
})

test('function tools, tool_choice, text.format, reasoning.effort, limits and sampling map to chat fields', () => {
  const body = chat({
    model: 'm',
    input: 'x',
    tools: [
      { type: 'function', name: 'f', description: 'd', parameters: { type: 'object', properties: {} }, strict: true },
    ],
    tool_choice: { type: 'function', name: 'f' },
    text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true } },
    reasoning: { effort: 'minimal' },
    max_output_tokens: 50,
    temperature: 0.2,
    top_p: 0.9,
    parallel_tool_calls: false,
    user: 'u1',
    metadata: { a: 'b' },
    stream: true,
  })
  assert.equal(body, {
    model: 'm',
    messages: [{ role: 'user', content: 'x' }],
    tools: [
      {
        type: 'function',
        function: { name: 'f', description: 'd', parameters: { type: 'object', properties: {} }, strict: true },
      },
    ],
    tool_choice: { type: 'function', function: { name: 'f' } },
    response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' }, strict: true } },
    reasoning_effort: 'minimal',
    max_tokens: 50,
    temperature: 0.2,
    top_p: 0.9,
    parallel_tool_calls: false,
    user: 'u1',
    stream: true,
    stream_options: { include_usage: true },
  })
  assert.equal(
    chat({ input: 'x', text: { format: { type: 'json_object' } }, tool_choice: 'required' }).response_format,
    { type: 'json_object' },
  )
  assert.is(chat({ input: 'x', text: { format: { type: 'text' } } }).response_format, undefined)
})

test('hosted tools, other tool choices and unsupported features are 400s that name them', () => {
  refused({ input: 'x', tools: [{ type: 'web_search' } as never] }, /tool type 'web_search' is not supported/)
  refused({ input: 'x', tool_choice: { type: 'file_search' } }, /tool_choice 'file_search'/)
  refused({ input: 'x', text: { format: { type: 'json_schema' } as never } }, /needs name and schema/)
  refused({ input: 'x', background: true }, /'background' is not supported/)
  refused({ input: 'x', conversation: 'conv_1' }, /'conversation' is not supported/)
})

test.run()
