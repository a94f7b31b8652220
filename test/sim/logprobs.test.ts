import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { RunningSimulator } from '../../sim/index.js'
import { chatBody, chunksOf, postError, postJson, postStream, startTestSimulator, type Logprob } from './helpers.js'

const logprobs = suite<{ sim: RunningSimulator }>('sim: logprobs')

logprobs.before(async (ctx) => {
  ctx.sim = await startTestSimulator()
})
logprobs.after(async (ctx) => {
  await ctx.sim.close()
})

function checkEntry(entry: Logprob, top: number): void {
  assert.ok(entry.logprob < 0)
  assert.equal(entry.bytes, Array.from(Buffer.from(entry.token, 'utf8')))
  assert.is(entry.top_logprobs.length, top)
  if (top === 0) return
  assert.is(entry.top_logprobs[0]?.token, entry.token, 'the chosen token comes first')
  assert.is(entry.top_logprobs[0]?.logprob, entry.logprob)
  const mass = entry.top_logprobs.reduce((sum, alt) => sum + Math.exp(alt.logprob), 0)
  assert.ok(mass < 1, `probabilities sum below 1 (${mass})`)
  assert.is(new Set(entry.top_logprobs.map((alt) => alt.token)).size, top, 'alternatives are distinct')
}

logprobs('one entry per content token with N alternatives, deterministic', async ({ sim }) => {
  const request = chatBody('Give me logprobs.', { logprobs: true, top_logprobs: 5 })
  const { status, body } = await postJson(sim, '/v1/chat/completions', request)
  assert.is(status, 200)
  const content = body.choices[0]?.logprobs?.content ?? []
  assert.is(content.length, body.usage.completion_tokens)
  assert.is(content.map((e) => e.token).join(''), body.choices[0]?.message.content)
  for (const entry of content) checkEntry(entry, 5)
  const again = await postJson(sim, '/v1/chat/completions', request)
  assert.equal(again.body.choices[0]?.logprobs, body.choices[0]?.logprobs)
})

logprobs('logprobs without top_logprobs: empty alternatives; without logprobs: null', async ({ sim }) => {
  const only = await postJson(sim, '/v1/chat/completions', chatBody('Only logprobs.', { logprobs: true }))
  for (const entry of only.body.choices[0]?.logprobs?.content ?? []) checkEntry(entry, 0)
  const none = await postJson(sim, '/v1/chat/completions', chatBody('No logprobs.'))
  assert.is(none.body.choices[0]?.logprobs, null)
})

logprobs('top_logprobs above 20 and top_logprobs without logprobs are 400s', async ({ sim }) => {
  const over = await postError(sim, '/v1/chat/completions', chatBody('x', { logprobs: true, top_logprobs: 21 }))
  assert.is(over.status, 400)
  assert.is(over.body.error.message, 'Requested sample logprobs of 21, which is greater than max allowed: 20')
  const twenty = await postJson(sim, '/v1/chat/completions', chatBody('x', { logprobs: true, top_logprobs: 20 }))
  assert.is(twenty.status, 200)
  const orphan = await postError(sim, '/v1/chat/completions', chatBody('x', { top_logprobs: 2 }))
  assert.is(orphan.status, 400)
  assert.is(orphan.body.error.message, 'when using `top_logprobs`, `logprobs` must be set to true.')
})

logprobs('streamed: each content chunk carries its token logprob', async ({ sim }) => {
  const res = await postStream(
    sim,
    '/v1/chat/completions',
    chatBody('Stream logprobs.', { stream: true, logprobs: true, top_logprobs: 2 }),
  )
  const contentChunks = chunksOf(res.events).filter((c) => c.choices[0]?.delta.content)
  assert.ok(contentChunks.length > 0)
  for (const chunk of contentChunks) {
    const entries = chunk.choices[0]?.logprobs?.content ?? []
    assert.is(entries.length, 1)
    const entry = entries[0]
    assert.ok(entry)
    assert.is(entry.token, chunk.choices[0]?.delta.content)
    checkEntry(entry, 2)
  }
})

interface CompletionReply {
  choices: Array<{
    text: string
    logprobs: {
      tokens: string[]
      token_logprobs: number[]
      top_logprobs: Array<Record<string, number>>
      text_offset: number[]
    } | null
  }>
  usage: { completion_tokens: number }
}

logprobs('legacy completions: integer logprobs in the tokens/token_logprobs/top_logprobs shape', async ({ sim }) => {
  const { status, body } = await postJson<CompletionReply>(sim, '/v1/completions', {
    model: 'sim-instruct-8b',
    prompt: 'Once upon a time',
    logprobs: 3,
  })
  assert.is(status, 200)
  const choice = body.choices[0]
  const lp = choice?.logprobs
  assert.ok(choice && lp)
  assert.is(lp.tokens.length, body.usage.completion_tokens)
  assert.is(lp.tokens.join(''), choice.text)
  assert.is(lp.token_logprobs.length, lp.tokens.length)
  assert.ok(lp.top_logprobs.every((top) => Object.keys(top).length === 3))
  assert.is(lp.text_offset[0], 0)
  const over = await postError(sim, '/v1/completions', { model: 'sim-instruct-8b', prompt: 'x', logprobs: 21 })
  assert.is(over.status, 400)
  assert.is(over.body.error.message, 'Requested sample logprobs of 21, which is greater than max allowed: 20')
})

logprobs.run()
