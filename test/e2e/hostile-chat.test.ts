/**
 * The hostile chat cases of issue 31 (point 2), at sizes that hit the same limits, against the
 * embedded default (the simulator in its own thread), with a probe GET /healthz every 100 ms
 * that must keep being answered. Asserts statuses and answers, never durations; the figures are
 * bench/hostile-chat.ts's.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { failIfStuck } from '../support/stuck.js'

const test = suite('e2e hostile chat: bounded asks, a gateway that keeps answering')
let gw: TestGateway
let probes: { answered: number; failed: number }
let probing = true
let loop: Promise<void>

test.before(async () => {
  gw = await startTestGateway()
  probes = { answered: 0, failed: 0 }
  loop = (async () => {
    while (probing) {
      const res = await fetch(`${gw.url}/healthz`).catch(() => undefined)
      if (res?.ok) probes.answered++
      else probes.failed++
      await res?.arrayBuffer()
      await new Promise((r) => setTimeout(r, 100))
    }
  })()
})
test.after(async () => {
  probing = false
  await loop
  await gw.close()
})

const chat = async (body: Record<string, unknown>) => {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim-chat-instruct', messages: [{ role: 'user', content: 'Go on.' }], ...body }),
  })
  const text = await res.text()
  return { status: res.status, text }
}
const message = (text: string) => (JSON.parse(text) as { error: { message: string } }).error.message

/** Every probe so far was answered, and at least one more is answered now. */
async function stillAnswering(): Promise<void> {
  const before = probes.answered
  await failIfStuck(
    (async () => {
      while (probes.answered === before) await new Promise((r) => setTimeout(r, 20))
    })(),
    'a probe answer',
  )
  assert.is(probes.failed, 0, 'every probe was answered')
}

test('n 128 with max_tokens 32,000, streamed: 400 naming n and the limit, before any model server', async () => {
  const before = (await gw.simulator!.stats()).requests
  const r = await chat({ n: 128, max_tokens: 32000, stream: true })
  assert.is(r.status, 400)
  assert.is(message(r.text), 'n 128 is over the limit of 16 for model sim-chat-instruct')
  assert.is((await gw.simulator!.stats()).requests, before, 'the simulator was not asked')
  await stillAnswering()
})

test('max_tokens over the context window: 400 naming max_tokens and the window', async () => {
  const r = await chat({ max_tokens: 40000 })
  assert.is(r.status, 400)
  assert.is(message(r.text), 'max_tokens 40000 is over the limit of 32768 for model sim-chat-instruct')
  await stillAnswering()
})

test('logprobs with top_logprobs 21: 400; n 64 with top_logprobs 20: 400 naming n', async () => {
  const top = await chat({ logprobs: true, top_logprobs: 21, max_tokens: 50 })
  assert.is(top.status, 400)
  assert.is(message(top.text), 'top_logprobs 21 is over the limit of 20 for model sim-chat-instruct')
  const many = await chat({ logprobs: true, top_logprobs: 20, n: 64, max_tokens: 4000 })
  assert.is(many.status, 400)
  assert.is(message(many.text), 'n 64 is over the limit of 16 for model sim-chat-instruct')
  await stillAnswering()
})

test('the most a request may ask (n 16, streamed, logprobs) is served by the simulator thread while probes are answered', async () => {
  const r = await chat({ n: 16, max_tokens: 2000, ignore_eos: true, stream: true, logprobs: true, top_logprobs: 20 })
  assert.is(r.status, 200)
  assert.ok(r.text.endsWith('data: [DONE]\n\n'), 'the stream ended normally')
  // 16 choices of 2,000 tokens each, every token with its logprobs.
  assert.is(r.text.split('"top_logprobs":[').length - 1, 16 * 2000)
  await stillAnswering()
})

test('the legacy completions door: n and logprobs within the same limits', async () => {
  const res = await fetch(`${gw.url}/v1/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim-chat-instruct', prompt: 'Go on.', n: 2, logprobs: 64, max_tokens: 10 }),
  })
  assert.is(res.status, 400)
  assert.is(message(await res.text()), 'logprobs 64 is over the limit of 20 for model sim-chat-instruct')
})

test('after all of it a normal chat is served', async () => {
  const r = await chat({ max_tokens: 20 })
  assert.is(r.status, 200)
  await stillAnswering()
})

test.run()
