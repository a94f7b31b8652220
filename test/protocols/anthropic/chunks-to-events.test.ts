import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { ChunksToEvents } from '../../../protocols/anthropic/chunks-to-events.js'
import { thinkingSignature } from '../../../protocols/anthropic/thinking-signature.js'
import type { ChatChunk } from '../../../protocols/anthropic/openai-chat.js'
import type { MessageStreamEvent } from '../../../protocols/anthropic/messages.js'

const test = suite('protocols/anthropic: chat chunks as Messages stream events')

const context = { id: 'msg_1', model: 'asked', inputTokens: 999 }
const usage = (prompt: number, completion: number, cached = 0) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  prompt_tokens_details: { cached_tokens: cached },
})
const delta = (
  d: NonNullable<NonNullable<ChatChunk['choices']>[number]['delta']>,
  extra: Partial<ChatChunk> = {},
): ChatChunk => ({ choices: [{ index: 0, delta: d, finish_reason: null }], ...extra })
const finish = (reason: string, stop_reason?: string): ChatChunk => ({
  choices: [{ index: 0, delta: {}, finish_reason: reason, stop_reason }],
})

function translate(chunks: ChatChunk[], ctx = context): MessageStreamEvent[] {
  const t = new ChunksToEvents(ctx)
  return [...chunks.flatMap((c) => t.push(c)), ...t.end()]
}

test('text: message_start with the first chunk usage, one text block, message_delta, message_stop', () => {
  const events = translate([
    delta({ content: '' }, { usage: usage(20, 0, 4) }),
    delta({ content: 'Hel' }, { usage: usage(20, 1, 4) }),
    delta({ content: 'lo' }, { usage: usage(20, 2, 4) }),
    finish('stop'),
    { choices: [], usage: usage(20, 2, 4) },
  ])
  assert.equal(events, [
    {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'asked',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 16, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 4 },
      },
    },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'lo' } },
    { type: 'content_block_stop', index: 0 },
    {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { input_tokens: 16, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 4 },
    },
    { type: 'message_stop' },
  ])
})

test('reasoning then text then a tool call: thinking (signature_delta last), text, tool_use with input_json_delta', () => {
  const events = translate([
    delta({ role: 'assistant', content: '' } as never),
    delta({ reasoning: 'Hmm' }),
    delta({ reasoning: ', ok.' }),
    delta({ content: 'Calling.' }),
    delta({ tool_calls: [{ index: 0, id: 'call_1', function: { name: 'get_weather', arguments: '' } }] }),
    delta({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
    delta({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
    finish('tool_calls'),
  ])
  const blocks = events.filter(
    (e) => e.type !== 'message_start' && e.type !== 'message_delta' && e.type !== 'message_stop',
  )
  assert.equal(blocks, [
    { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hmm' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: ', ok.' } },
    {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'signature_delta', signature: thinkingSignature('Hmm, ok.') },
    },
    { type: 'content_block_stop', index: 0 },
    { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Calling.' } },
    { type: 'content_block_stop', index: 1 },
    {
      type: 'content_block_start',
      index: 2,
      content_block: { type: 'tool_use', id: 'call_1', name: 'get_weather', input: {} },
    },
    { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"city":' } },
    { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } },
    { type: 'content_block_stop', index: 2 },
  ])
  const end = events.at(-2) as Extract<MessageStreamEvent, { type: 'message_delta' }>
  assert.is(end.delta.stop_reason, 'tool_use')
})

test('two tool calls are two blocks, by index or by a new id, even when a server repeats the id', () => {
  const events = translate([
    delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{}' } }] }),
    delta({ tool_calls: [{ index: 0, id: 'a', function: { arguments: '' } }] }),
    delta({ tool_calls: [{ index: 1, id: 'b', function: { name: 'g', arguments: '{"x":1}' } }] }),
    finish('tool_calls'),
  ])
  const starts = events
    .filter((e) => e.type === 'content_block_start')
    .map((e) => (e as { content_block: { id?: string } }).content_block.id)
  assert.equal(starts, ['a', 'b'])
})

test('no usage from the server: message_start has the estimate, message_delta the pieces counted', () => {
  const events = translate([
    delta({ content: 'a' }),
    delta({ content: 'b' }),
    delta({ content: 'c' }),
    finish('length'),
  ])
  const start = events[0] as Extract<MessageStreamEvent, { type: 'message_start' }>
  assert.is(start.message.usage.input_tokens, 999)
  const end = events.at(-2) as Extract<MessageStreamEvent, { type: 'message_delta' }>
  assert.equal(end.delta, { stop_reason: 'max_tokens', stop_sequence: null })
  assert.is(end.usage.output_tokens, 3)
})

test('a stop string (vLLM stop_reason) → stop_sequence', () => {
  const events = translate([delta({ content: 'a' }), finish('stop', 'END')], {
    ...context,
    stopSequences: ['END'],
  } as typeof context)
  const end = events.at(-2) as Extract<MessageStreamEvent, { type: 'message_delta' }>
  assert.equal(end.delta, { stop_reason: 'stop_sequence', stop_sequence: 'END' })
})

test('an empty stream still makes a whole message; other choices are ignored', () => {
  assert.equal(
    translate([]).map((e) => e.type),
    ['message_start', 'message_delta', 'message_stop'],
  )
  const events = translate([
    { choices: [{ index: 1, delta: { content: 'other' }, finish_reason: null }] },
    finish('stop'),
  ])
  assert.not.ok(events.some((e) => e.type === 'content_block_start'))
})

test.run()
