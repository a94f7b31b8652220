import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { CompletionAssembler, completionChunks } from '../../../protocols/openai/completion-stream.js'

const test = suite('protocols/openai completion-stream')

const assemble = (chunks: Record<string, unknown>[], usage?: Record<string, unknown>) => {
  const a = new CompletionAssembler()
  for (const c of chunks) a.push(c)
  return a.completion(usage)
}

const chat = {
  id: 'chatcmpl-9',
  object: 'chat.completion',
  created: 5,
  model: 'm',
  system_fingerprint: 'fp',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'Hi there.', reasoning: 'A greeting.' },
      logprobs: { content: [{ token: 'Hi', logprob: -0.1, top_logprobs: [] }] },
      finish_reason: 'stop',
    },
    {
      index: 1,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'look', arguments: '{"q":"x"}' } }],
      },
      logprobs: null,
      finish_reason: 'tool_calls',
    },
  ],
  usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
}

test('a chat completion streamed and put back together is the same completion', () => {
  const chunks = completionChunks(chat, true)
  assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === 'chatcmpl-9'))
  assert.equal(chunks.at(-1)?.usage, chat.usage)
  assert.equal(chunks.at(-1)?.choices, [])
  assert.equal(assemble(chunks), chat)
  assert.not.ok(
    completionChunks(chat, false).some((c) => 'usage' in c),
    'no usage chunk unless asked',
  )
})

test('a text completion, with its logprobs, both ways', () => {
  const text = {
    id: 'cmpl-1',
    object: 'text_completion',
    created: 1,
    model: 'm',
    choices: [
      {
        index: 0,
        text: 'ab',
        logprobs: { tokens: ['a', 'b'], token_logprobs: [-1, -2], top_logprobs: [null, null], text_offset: [0, 1] },
        finish_reason: 'length',
      },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
  }
  const chunks = completionChunks(text, true)
  assert.ok(chunks.every((c) => c.object === 'text_completion'))
  assert.equal(assemble(chunks), text)
  // As a server streams it: a token a chunk, logprobs sliced.
  const head = { id: 'cmpl-1', object: 'text_completion', created: 1, model: 'm' }
  const byToken = [
    {
      ...head,
      choices: [
        {
          index: 0,
          text: 'a',
          logprobs: { tokens: ['a'], token_logprobs: [-1], top_logprobs: [null], text_offset: [0] },
          finish_reason: null,
        },
      ],
    },
    {
      ...head,
      choices: [
        {
          index: 0,
          text: 'b',
          logprobs: { tokens: ['b'], token_logprobs: [-2], top_logprobs: [null], text_offset: [1] },
          finish_reason: null,
        },
      ],
    },
    { ...head, choices: [{ index: 0, text: '', logprobs: null, finish_reason: 'length' }] },
  ]
  assert.equal(assemble(byToken, text.usage), text, "the usage given stands in for a stream's own")
})

test('a stream that cannot be told back whole gives nothing', () => {
  const head = { id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm' }
  const unfinished = [{ ...head, choices: [{ index: 0, delta: { content: 'half' }, finish_reason: null }] }]
  assert.is(assemble(unfinished), undefined, 'a choice without its finish')
  const unknown = [
    { ...head, choices: [{ index: 0, delta: { audio: { id: 'a1', data: 'AAAA' } }, finish_reason: null }] },
    { ...head, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
  ]
  assert.is(assemble(unknown), undefined, 'a delta field it does not know how to join')
  assert.is(assemble([]), undefined, 'no choices at all')
})

test.run()
