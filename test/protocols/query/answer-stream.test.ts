import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { readAnswerStream, streamingBody } from '../../../protocols/query/answer-stream.js'
import { reply } from '../../../kernel/contract/reply.js'
import { GatewayError } from '../../../kernel/contract/errors.js'
import type { CallResult } from '../../../kernel/contract/kernel.js'
import { Usage } from '../../../kernel/contract/usage.js'

const test = suite('protocols/query: reading a streamed answer')

const result = (r: CallResult['reply']): CallResult => ({ reply: r, headers: new Map(), usage: new Usage(undefined) })
async function* chunks(items: object[], fail?: Error): AsyncGenerator<object> {
  for (const c of items) yield c
  if (fail) throw fail
}
const delta = (content: string) => ({ id: 'c1', model: 'm', choices: [{ delta: { content } }] })

test('streamingBody asks for a stream with its usage', () => {
  assert.equal(streamingBody({ model: 'm' }), { model: 'm', stream: true, stream_options: { include_usage: true } })
})

test('deltas go out as they come; the answer, finish reason and completion at the end', async () => {
  const seen: string[] = []
  const items = [
    { choices: [{ delta: { role: 'assistant' } }] },
    delta('Hel'),
    delta('lo'),
    { id: 'c1', model: 'm', choices: [{ delta: {}, finish_reason: 'stop' }] },
    { id: 'c1', model: 'm', choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } },
  ]
  const read = await readAnswerStream(
    result(reply.events(chunks(items) as AsyncIterable<Record<string, unknown>>)),
    async (d) => void seen.push(d),
  )
  assert.equal(seen, ['Hel', 'lo'])
  assert.is(read.text, 'Hello')
  assert.is(read.finishReason, 'stop')
  assert.type(read.firstDeltaAt, 'number')
  const completion = read.completion as { object: string; choices: { message: { content: string } }[]; usage: unknown }
  assert.is(completion.object, 'chat.completion')
  assert.is(completion.choices[0]!.message.content, 'Hello')
  assert.equal(completion.usage, { prompt_tokens: 3, completion_tokens: 2 })
})

test('tool calls are put together from their fragments', async () => {
  const items = [
    { choices: [{ delta: { tool_calls: [{ index: 0, id: 't1', function: { name: 'get_', arguments: '{"a"' } }] } }] },
    {
      choices: [
        {
          delta: { tool_calls: [{ index: 0, function: { name: 'time', arguments: ':1}' } }] },
          finish_reason: 'tool_calls',
        },
      ],
    },
  ]
  const read = await readAnswerStream(
    result(reply.events(chunks(items) as AsyncIterable<Record<string, unknown>>)),
    async () => undefined,
  )
  assert.equal(read.toolCalls, [{ id: 't1', type: 'function', function: { name: 'get_time', arguments: '{"a":1}' } }])
  assert.is(read.text, '')
})

test('a model error before the stream passes through; a cut stream and a stream without a finish are 502', async () => {
  await readAnswerStream(result(reply.json({ error: { message: 'no such model' } }, 404)), async () => undefined).then(
    () => assert.unreachable(),
    (err: GatewayError) => {
      assert.is(err.status, 404)
      assert.is(err.message, 'no such model')
    },
  )
  const cut = new GatewayError(502, 'upstream connection lost')
  await readAnswerStream(
    result(reply.events(chunks([delta('a')], cut) as AsyncIterable<Record<string, unknown>>)),
    async () => undefined,
  ).then(
    () => assert.unreachable(),
    (err: GatewayError) => assert.is(err, cut),
  )
  await readAnswerStream(
    result(reply.events(chunks([delta('a')]) as AsyncIterable<Record<string, unknown>>)),
    async () => undefined,
  ).then(
    () => assert.unreachable(),
    (err: GatewayError) => assert.match(err.message, /ended the answer stream before it finished/),
  )
})

test.run()
