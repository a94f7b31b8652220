import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { RunningSimulator } from '../../sim/index.js'
import { chatBody, chunksOf, postError, postJson, postStream, startTestSimulator } from './helpers.js'

const stream = suite<{ sim: RunningSimulator }>('sim: chat streaming')

stream.before(async (ctx) => {
  ctx.sim = await startTestSimulator()
})
stream.after(async (ctx) => {
  await ctx.sim.close()
})

stream('vLLM chunk order: role first, shared id and created, no usage key, finish, [DONE] last', async ({ sim }) => {
  const res = await postStream(sim, '/v1/chat/completions', chatBody('Stream me a story.', { stream: true }))
  assert.is(res.status, 200)
  assert.is(res.error, undefined)
  assert.is(res.events[res.events.length - 1], '[DONE]')
  assert.is(res.events.filter((e) => e === '[DONE]').length, 1)
  const chunks = chunksOf(res.events)
  const first = chunks[0]
  assert.ok(first)
  assert.equal(first.choices[0]?.delta, { role: 'assistant', content: '' })
  assert.ok(
    chunks.every((c) => c.id === first.id && c.created === first.created && c.object === 'chat.completion.chunk'),
  )
  assert.ok(
    chunks.every((c) => !('usage' in c)),
    'no usage key without include_usage',
  )
  const finishes = chunks.filter((c) => c.choices[0]?.finish_reason)
  assert.is(finishes.length, 1)
  assert.is(finishes[0], chunks[chunks.length - 1])
})

stream('streamed text equals the non-streamed reply to the same request', async ({ sim }) => {
  const body = chatBody('Same either way.', { max_tokens: 30 })
  const whole = await postJson(sim, '/v1/chat/completions', body)
  const res = await postStream(sim, '/v1/chat/completions', { ...body, stream: true })
  const text = chunksOf(res.events)
    .map((c) => c.choices[0]?.delta.content ?? '')
    .join('')
  assert.is(text, whole.body.choices[0]?.message.content)
})

stream('include_usage: a final chunk with choices [] and usage, before [DONE]', async ({ sim }) => {
  const res = await postStream(
    sim,
    '/v1/chat/completions',
    chatBody('Count my tokens.', { stream: true, stream_options: { include_usage: true } }),
  )
  const chunks = chunksOf(res.events)
  const last = chunks[chunks.length - 1]
  assert.ok(last?.usage)
  assert.equal(last.choices, [])
  assert.is(res.events[res.events.length - 1], '[DONE]')
  const contentChunks = chunks.filter((c) => c.choices[0]?.delta.content)
  assert.is(last.usage.completion_tokens, contentChunks.length)
  assert.is(last.usage.total_tokens, last.usage.prompt_tokens + last.usage.completion_tokens)
  assert.ok(last.usage.prompt_tokens_details)
  assert.ok(
    chunks.slice(0, -1).every((c) => !('usage' in c)),
    'only the last chunk has usage',
  )
})

stream('include_usage false: no usage chunk', async ({ sim }) => {
  const res = await postStream(
    sim,
    '/v1/chat/completions',
    chatBody('No usage.', { stream: true, stream_options: { include_usage: false } }),
  )
  assert.ok(chunksOf(res.events).every((c) => !('usage' in c)))
})

stream('stream_options without stream: 400', async ({ sim }) => {
  const res = await postError(sim, '/v1/chat/completions', chatBody('x', { stream_options: { include_usage: true } }))
  assert.is(res.status, 400)
  assert.is(res.body.error.message, 'Stream options can only be defined when `stream=True`.')
})

stream('with latency the stream still arrives whole, chunk by chunk', async ({ sim }) => {
  const res = await postStream(sim, '/v1/chat/completions', chatBody('Slow please.', { stream: true, max_tokens: 5 }), {
    'x-sim-ttft-ms': '5',
    'x-sim-itl-ms': '1',
  })
  assert.is(res.events[res.events.length - 1], '[DONE]')
  assert.ok(chunksOf(res.events).length >= 3)
})

stream.run()
