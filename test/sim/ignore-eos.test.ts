import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { chatBody, chunksOf, postJson, postStream, startTestSimulator, type ChatChunk } from './helpers.js'
import type { RunningSimulator } from '../../sim/index.js'

const test = suite('sim: ignore_eos')
let sim: RunningSimulator

test.before(async () => {
  sim = await startTestSimulator()
})
test.after(async () => sim.close())

test('ignore_eos makes every reply exactly max_tokens long, streamed or not', async () => {
  for (let i = 0; i < 10; i++) {
    const whole = await postJson(
      sim,
      '/v1/chat/completions',
      chatBody(`question ${i}`, { max_tokens: 20, ignore_eos: true }),
    )
    assert.is(whole.body.usage.completion_tokens, 20)
  }
  const streamed = await postStream(
    sim,
    '/v1/chat/completions',
    chatBody('stream it', { max_tokens: 20, ignore_eos: true, stream: true }),
  )
  const content = chunksOf<ChatChunk>(streamed.events).filter((c) => c.choices[0]?.delta?.content)
  assert.is(content.length, 20)
})

test('without it, lengths vary below max_tokens', async () => {
  const lengths = new Set<number>()
  for (let i = 0; i < 10; i++)
    lengths.add(
      (await postJson(sim, '/v1/chat/completions', chatBody(`question ${i}`, { max_tokens: 20 }))).body.usage
        .completion_tokens,
    )
  assert.ok(lengths.size > 1)
})

test.run()
