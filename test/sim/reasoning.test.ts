import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { RunningSimulator } from '../../sim/index.js'
import { chunksOf, postJson, postStream, startTestSimulator } from './helpers.js'

const reasoning = suite<{ sim: RunningSimulator }>('sim: reasoning')

reasoning.before(async (ctx) => {
  ctx.sim = await startTestSimulator()
})
reasoning.after(async (ctx) => {
  await ctx.sim.close()
})

function body(model: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model, messages: [{ role: 'user', content: 'Why is the sky blue?' }], ...extra }
}

function words(text: string | null | undefined): number {
  return (text ?? '').match(/\s*\S+/g)?.length ?? 0
}

reasoning('a thinking model thinks by default, in `reasoning`, and counts it as output', async ({ sim }) => {
  const { body: reply } = await postJson(sim, '/v1/chat/completions', body('sim-thinker-8b'))
  const message = reply.choices[0]?.message
  assert.ok(message)
  assert.type(message.reasoning, 'string')
  assert.is(words(message.reasoning), 48, 'default medium effort: 48 tokens')
  assert.ok((message.content ?? '').length > 0)
  assert.not.ok('reasoning_content' in message)
  assert.is(reply.usage.completion_tokens, words(message.reasoning) + words(message.content))
})

reasoning('enable_thinking false and reasoning_effort none turn it off', async ({ sim }) => {
  const off = await postJson(
    sim,
    '/v1/chat/completions',
    body('sim-thinker-8b', { chat_template_kwargs: { enable_thinking: false } }),
  )
  assert.is(off.body.choices[0]?.message.reasoning, null)
  const none = await postJson(sim, '/v1/chat/completions', body('sim-thinker-8b', { reasoning_effort: 'none' }))
  assert.is(none.body.choices[0]?.message.reasoning, null)
})

reasoning('reasoning_effort sets the length; thinking_token_budget wins over it', async ({ sim }) => {
  const low = await postJson(sim, '/v1/chat/completions', body('sim-thinker-8b', { reasoning_effort: 'low' }))
  assert.is(words(low.body.choices[0]?.message.reasoning), 16)
  const high = await postJson(sim, '/v1/chat/completions', body('sim-thinker-8b', { reasoning_effort: 'high' }))
  assert.is(words(high.body.choices[0]?.message.reasoning), 128)
  const budget = await postJson(
    sim,
    '/v1/chat/completions',
    body('sim-thinker-8b', { reasoning_effort: 'high', thinking_token_budget: 5 }),
  )
  assert.is(words(budget.body.choices[0]?.message.reasoning), 5)
})

reasoning('a Qwen3-style model thinks only when asked, in `reasoning_content`', async ({ sim }) => {
  const quiet = await postJson(sim, '/v1/chat/completions', body('sim-vision-7b'))
  const quietMessage = quiet.body.choices[0]?.message
  assert.is(quietMessage?.reasoning_content, null)
  assert.not.ok(quietMessage && 'reasoning' in quietMessage)
  const asked = await postJson(
    sim,
    '/v1/chat/completions',
    body('sim-vision-7b', { chat_template_kwargs: { enable_thinking: true } }),
  )
  assert.type(asked.body.choices[0]?.message.reasoning_content, 'string')
  const effort = await postJson(sim, '/v1/chat/completions', body('sim-vision-7b', { reasoning_effort: 'low' }))
  assert.is(words(effort.body.choices[0]?.message.reasoning_content), 16)
})

reasoning('a model without reasoning ignores the controls', async ({ sim }) => {
  const res = await postJson(
    sim,
    '/v1/chat/completions',
    body('sim-instruct-8b', { chat_template_kwargs: { enable_thinking: true }, reasoning_effort: 'high' }),
  )
  assert.is(res.body.choices[0]?.message.reasoning, null)
})

reasoning('thinking that uses up max_tokens leaves content "" and finish_reason length', async ({ sim }) => {
  const res = await postJson(sim, '/v1/chat/completions', body('sim-thinker-8b', { max_tokens: 10 }))
  const choice = res.body.choices[0]
  assert.is(choice?.message.content, '')
  assert.is(words(choice?.message.reasoning), 10)
  assert.is(choice?.finish_reason, 'length')
  assert.is(res.body.usage.completion_tokens, 10)
})

reasoning('streamed: reasoning deltas come before content deltas, in the configured field', async ({ sim }) => {
  const res = await postStream(
    sim,
    '/v1/chat/completions',
    body('sim-thinker-8b', { stream: true, reasoning_effort: 'low' }),
  )
  const chunks = chunksOf(res.events)
  const kinds = chunks
    .map((c) => (c.choices[0]?.delta.reasoning ? 'r' : c.choices[0]?.delta.content ? 'c' : '-'))
    .join('')
  assert.match(kinds, /^-r{16}c+-$/)
  const old = await postStream(
    sim,
    '/v1/chat/completions',
    body('sim-vision-7b', { stream: true, reasoning_effort: 'low' }),
  )
  assert.is(chunksOf(old.events).filter((c) => c.choices[0]?.delta.reasoning_content).length, 16)
})

reasoning('include_reasoning false hides the reasoning but still counts it', async ({ sim }) => {
  const res = await postJson(
    sim,
    '/v1/chat/completions',
    body('sim-thinker-8b', { include_reasoning: false, reasoning_effort: 'low' }),
  )
  const message = res.body.choices[0]?.message
  assert.is(message?.reasoning, null)
  assert.is(res.body.usage.completion_tokens, 16 + words(message?.content))
})

reasoning.run()
