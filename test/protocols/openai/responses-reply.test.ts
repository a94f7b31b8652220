/** Chat completion → Response, and chat stream → Responses events: pure. */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { fromChatCompletion, type ResponseContext } from '../../../protocols/openai/responses-reply.js'
import { ResponsesStreamWriter, type ResponsesEvent } from '../../../protocols/openai/responses-stream.js'
import { isResponseId, itemId, responseId, responseOfItem } from '../../../protocols/openai/responses-ids.js'

const ID = responseId('ab'.repeat(24))
const ctx = (request: ResponseContext['request'] = { model: 'sim', input: 'x' }): ResponseContext => ({
  id: ID,
  createdAt: 1000,
  request,
  store: true,
})
const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 4 } }

const test = suite('protocols openai: chat reply → Response')

test('ids: a response id, and item ids that name their response', () => {
  assert.ok(isResponseId(ID))
  assert.not.ok(isResponseId('resp_123'))
  assert.is(responseOfItem(itemId(ID, 'msg', 3)), ID)
  assert.is(responseOfItem(itemId(ID, 'fco', 0, true)), ID)
  assert.is(responseOfItem('msg_other'), undefined)
})

test('a text answer: one message item, usage in the Responses shape, settings echoed', () => {
  const r = fromChatCompletion(
    ctx({ model: 'sim', input: 'x', instructions: 'be nice', temperature: 0, metadata: { k: 'v' } }),
    { model: 'sim-8b', choices: [{ message: { role: 'assistant', content: 'Hello.' }, finish_reason: 'stop' }], usage },
    1001,
  )
  assert.is(r.object, 'response')
  assert.is(r.status, 'completed')
  assert.is(r.model, 'sim-8b')
  assert.is(r.completed_at, 1001)
  assert.equal(r.output, [
    {
      id: itemId(ID, 'msg', 0),
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Hello.', annotations: [], logprobs: [] }],
    },
  ])
  assert.equal(r.usage, {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 4 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  })
  assert.is(r.instructions, 'be nice')
  assert.is(r.temperature, 0)
  assert.equal(r.metadata, { k: 'v' })
  assert.equal(r.text, { format: { type: 'text' } })
  assert.is(r.tool_choice, 'auto')
  assert.is(r.store, true)
})

test('reasoning first (as a summary), then tool calls as function_call items; no empty message', () => {
  const r = fromChatCompletion(
    ctx(),
    {
      model: 'm',
      choices: [
        {
          message: {
            content: null,
            reasoning: 'think',
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage,
    },
    1,
  )
  assert.equal(
    r.output.map((o) => o.type),
    ['reasoning', 'function_call'],
  )
  assert.equal(r.output[0], {
    id: itemId(ID, 'rs', 0),
    type: 'reasoning',
    summary: [{ type: 'summary_text', text: 'think' }],
    status: 'completed',
  })
  assert.equal(r.output[1], {
    id: itemId(ID, 'fc', 1),
    type: 'function_call',
    call_id: 'call_1',
    name: 'f',
    arguments: '{"a":1}',
    status: 'completed',
  })
})

test('include reasoning.encrypted_content: the reasoning item carries an opaque token of its text; not asked, none', () => {
  const completion = {
    model: 'm',
    choices: [{ message: { content: 'ok', reasoning: 'think' }, finish_reason: 'stop' }],
    usage,
  }
  const asked = fromChatCompletion(
    ctx({ model: 'sim', input: 'x', store: false, include: ['reasoning.encrypted_content'] }),
    completion,
    1,
  )
  const token = (asked.output[0] as { encrypted_content?: unknown }).encrypted_content
  assert.type(token, 'string')
  assert.match(token as string, /^[A-Za-z0-9+/]{43}=$/)
  assert.is.not(token, 'think')
  const again = fromChatCompletion(
    ctx({ model: 'sim', input: 'y', include: ['message.output_text.logprobs', 'reasoning.encrypted_content'] }),
    completion,
    2,
  )
  assert.is((again.output[0] as { encrypted_content?: unknown }).encrypted_content, token, 'stable for the same text')
  assert.not.ok('encrypted_content' in fromChatCompletion(ctx(), completion, 1).output[0]!)
  assert.not.ok(
    'encrypted_content' in
      fromChatCompletion(ctx({ model: 'sim', input: 'x', include: ['message.output_text.logprobs'] }), completion, 1)
        .output[0]!,
  )
})

test('finish_reason length: incomplete, reason max_output_tokens', () => {
  const r = fromChatCompletion(
    ctx(),
    { model: 'm', choices: [{ message: { content: 'Hel' }, finish_reason: 'length' }], usage },
    1,
  )
  assert.is(r.status, 'incomplete')
  assert.equal(r.incomplete_details, { reason: 'max_output_tokens' })
  assert.is((r.output[0] as { status: string }).status, 'incomplete')
  assert.is(r.completed_at, null)
})

test.run()

const stream = suite('protocols openai: chat stream → Responses events')

const chunk = (delta: object, finish: string | null = null) => ({
  model: 'sim-8b',
  choices: [{ index: 0, delta, finish_reason: finish }],
})

function run(
  chunks: object[],
  request?: ResponseContext['request'],
): { events: ResponsesEvent[]; writer: ResponsesStreamWriter } {
  const writer = new ResponsesStreamWriter(ctx(request), 'sim')
  const events = [...writer.start()]
  for (const c of chunks) events.push(...writer.chunk(c as Record<string, unknown>))
  const end = writer.end(2000)
  events.push(...end.events, writer.completed(end.response))
  return { events, writer }
}

stream('reasoning then text: the events in OpenAI order, sequence numbers from 0, the full Response last', () => {
  const { events } = run([
    chunk({ role: 'assistant', content: '' }),
    chunk({ reasoning: 'Let me' }),
    chunk({ reasoning: ' think' }),
    chunk({ content: 'Hi' }),
    chunk({ content: ' there' }),
    chunk({}, 'stop'),
    { model: 'sim-8b', choices: [], usage },
  ])
  assert.equal(
    events.map((e) => e.type),
    [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ],
  )
  assert.equal(
    events.map((e) => e.sequence_number),
    events.map((_, i) => i),
  )
  const created = events[0]!.response as { status: string; output: unknown[] }
  assert.is(created.status, 'in_progress')
  assert.equal(created.output, [])
  const delta = events[11]!
  assert.equal(delta, {
    type: 'response.output_text.delta',
    item_id: itemId(ID, 'msg', 1),
    output_index: 1,
    content_index: 0,
    delta: 'Hi',
    logprobs: [],
    sequence_number: 11,
  })
  assert.is(events[13]!.text, 'Hi there')
  const done = events[16]!.response as {
    status: string
    output: { type: string }[]
    usage: { input_tokens: number; output_tokens: number }
    model: string
  }
  assert.is(done.status, 'completed')
  assert.is(done.model, 'sim-8b')
  assert.equal(
    done.output.map((o) => o.type),
    ['reasoning', 'message'],
  )
  assert.is(done.usage.input_tokens, 10)
})

stream('tool calls: one function_call item per call, arguments streamed and done', () => {
  const { events } = run([
    chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"x":' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
    chunk({}, 'tool_calls'),
  ])
  assert.equal(
    events.map((e) => e.type),
    [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ],
  )
  assert.equal((events[2]!.item as { call_id: string; status: string }).call_id, 'call_a')
  assert.equal(events[5]!.arguments, '{"x":1}')
  assert.equal(events[6]!.item, {
    id: itemId(ID, 'fc', 0),
    type: 'function_call',
    call_id: 'call_a',
    name: 'f',
    arguments: '{"x":1}',
    status: 'completed',
  })
})

stream('include reasoning.encrypted_content: the finished reasoning item carries the token of its whole text', () => {
  const chunks = [
    chunk({ reasoning: 'Let me' }),
    chunk({ reasoning: ' think' }),
    chunk({ content: 'Hi' }),
    chunk({}, 'stop'),
  ]
  const { events } = run(chunks, { model: 'sim', input: 'x', store: false, include: ['reasoning.encrypted_content'] })
  const whole = fromChatCompletion(
    ctx({ model: 'sim', input: 'x', include: ['reasoning.encrypted_content'] }),
    { model: 'm', choices: [{ message: { content: 'Hi', reasoning: 'Let me think' }, finish_reason: 'stop' }] },
    1,
  )
  const token = (whole.output[0] as { encrypted_content: string }).encrypted_content
  const reasoningDone = events.find(
    (e) => e.type === 'response.output_item.done' && (e.item as { type: string }).type === 'reasoning',
  )!
  assert.is((reasoningDone.item as { encrypted_content?: string }).encrypted_content, token)
  const completed = events[events.length - 1]!.response as { output: { encrypted_content?: string }[] }
  assert.is(completed.output[0]!.encrypted_content, token)
  assert.not.ok(
    'encrypted_content' in (run(chunks).events.find((e) => e.type === 'response.output_item.done')!.item as object),
  )
})

stream('a reply cut at its length ends with response.incomplete', () => {
  const { events } = run([chunk({ content: 'abc' }), chunk({}, 'length')])
  const last = events[events.length - 1]!
  assert.is(last.type, 'response.incomplete')
  assert.equal((last.response as { incomplete_details: unknown }).incomplete_details, { reason: 'max_output_tokens' })
})

stream('failure: response.failed with what was made, then the error event in both documented shapes', () => {
  const writer = new ResponsesStreamWriter(ctx(), 'sim')
  writer.start()
  writer.chunk(chunk({ content: 'par' }))
  const failed = writer.failed('upstream_failed', 'upstream stream ended before it was complete')
  assert.is(failed.type, 'response.failed')
  const response = failed.response as { status: string; error: unknown; output: unknown[] }
  assert.is(response.status, 'failed')
  assert.equal(response.error, { code: 'upstream_failed', message: 'upstream stream ended before it was complete' })
  assert.is(response.output.length, 1)
  const error = writer.error('gateway_error', 'upstream_failed', 'cut')
  assert.equal(error, {
    type: 'error',
    code: 'upstream_failed',
    message: 'cut',
    param: null,
    error: { type: 'gateway_error', code: 'upstream_failed', message: 'cut', param: null },
    sequence_number: failed.sequence_number + 1,
  })
})

stream.run()
