import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { messageFromCompletion, toolInput } from '../../../protocols/anthropic/message-from-completion.js'
import { thinkingSignature } from '../../../protocols/anthropic/thinking-signature.js'
import type { ChatCompletion } from '../../../protocols/anthropic/openai-chat.js'

const test = suite('protocols/anthropic: a chat completion as a message')

const context = { id: 'msg_1', model: 'asked-name' }
const usage = { prompt_tokens: 30, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 16 } }

test('text: the message envelope, the model as asked, cached tokens apart from input_tokens', () => {
  const completion: ChatCompletion = { choices: [{ message: { content: 'Hello' }, finish_reason: 'stop' }], usage }
  assert.equal(messageFromCompletion(completion, context), {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'asked-name',
    content: [{ type: 'text', text: 'Hello' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 14, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 16 },
  })
})

test('reasoning, text and tool calls: thinking first (signed), text, then tool_use with parsed input', () => {
  const completion: ChatCompletion = {
    choices: [
      {
        message: {
          reasoning: 'Let me think.',
          content: 'Calling.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          ],
        },
        finish_reason: 'tool_calls',
      },
    ],
    usage,
  }
  const msg = messageFromCompletion(completion, context)
  assert.equal(msg.content, [
    { type: 'thinking', thinking: 'Let me think.', signature: thinkingSignature('Let me think.') },
    { type: 'text', text: 'Calling.' },
    { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
  ])
  assert.is(msg.stop_reason, 'tool_use')
})

test('stop reasons: length → max_tokens, a forced call ending in stop → tool_use, a stop string → stop_sequence', () => {
  const end = (choice: NonNullable<ChatCompletion['choices']>[number], stopSequences?: string[]) => {
    const m = messageFromCompletion({ choices: [choice] }, { ...context, stopSequences })
    return [m.stop_reason, m.stop_sequence]
  }
  assert.equal(end({ message: { content: 'x' }, finish_reason: 'length' }), ['max_tokens', null])
  assert.equal(
    end({
      message: { tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      finish_reason: 'stop',
    }),
    ['tool_use', null],
  )
  assert.equal(end({ message: { content: 'x' }, finish_reason: 'stop', stop_reason: 'END' }, ['END']), [
    'stop_sequence',
    'END',
  ])
  assert.equal(
    end({ message: { content: 'x' }, finish_reason: 'stop', stop_reason: 151645 }, ['END']),
    ['end_turn', null],
    'an EOS token id is an end of turn',
  )
  assert.equal(end({ message: { content: 'x' }, finish_reason: 'content_filter' }), ['refusal', null])
})

test('empty pieces make no blocks; a reasoning_content-less reply has no thinking block', () => {
  const msg = messageFromCompletion(
    { choices: [{ message: { content: '', reasoning: null, tool_calls: [] }, finish_reason: 'length' }] },
    context,
  )
  assert.equal(msg.content, [])
  assert.equal(msg.usage, {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  })
})

test('tool arguments cut short by max_tokens are an empty input', () => {
  assert.equal(toolInput('{"city":"Par'), {})
  assert.equal(toolInput(''), {})
  assert.equal(toolInput('{"a":[1,2]}'), { a: [1, 2] })
})

test('the signature is stable for the same thinking and differs for another', () => {
  assert.is(thinkingSignature('a'), thinkingSignature('a'))
  assert.is.not(thinkingSignature('a'), thinkingSignature('b'))
  assert.match(thinkingSignature('a'), /^[A-Za-z0-9+/]+=*$/)
})

test.run()
