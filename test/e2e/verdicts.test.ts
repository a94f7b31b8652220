import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import OpenAI from 'openai'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { formatHash, hashSecret } from '../../protocols/credentials/secrets.js'

const test = suite('e2e verdicts (POST /v1/verdicts) against the simulator')
let gw: TestGateway
let client: OpenAI

const keys = `groups:
  demo: {}
keys:
  - { id: demo, group: demo, demo: true }
  - { id: old, group: demo, legacy: true, hash: "${formatHash(hashSecret('sk-legacy'))}" }
`

test.before(async () => {
  gw = await startTestGateway({ files: { 'config/keys.yaml': keys } })
  client = gw.openai()
})
test.after(async () => gw.close())

interface Verdict {
  type: string
  value: unknown
  probabilities: Record<string, number> | number[]
  confidence: number
  expected_value?: number
}
interface VerdictsReply {
  model: string
  verdicts: Record<string, Verdict>
  usage: {
    prompt_tokens: number
    completion_tokens: number
    total_tokens: number
    prompt_tokens_details: { cached_tokens: number }
  }
}

const verdictsOf = (body: Record<string, unknown>) => client.post<VerdictsReply>('/verdicts', { body })

async function raw(
  body: unknown,
  key = TEST_KEY,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${gw.url}/v1/verdicts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers }
}

const three = {
  polite: {
    type: 'boolean',
    instructions: 'Is the message polite? [sim-verdict: prefer=Yes]',
    criteria: { true: 'courteous wording', false: 'rude or curt' },
  },
  kind: {
    type: 'choice',
    instructions: 'What kind of message is it? [sim-verdict: prefer=B]',
    criteria: { greeting: 'says hello', request: 'asks for help', complaint: null },
  },
  warmth: {
    type: 'score',
    instructions: 'How warm is it? [sim-verdict: prefer=4]',
    criteria: ['cold', 'cool', 'neutral', 'warm', 'very warm'],
  },
}

const sum = (p: Verdict['probabilities']) => (Array.isArray(p) ? p : Object.values(p)).reduce((s, x) => s + x, 0)

function checkDistribution(v: Verdict): void {
  assert.ok(Math.abs(sum(v.probabilities) - 1) < 1e-9, `sums to 1 (${sum(v.probabilities)})`)
  assert.ok(v.confidence >= 0 && v.confidence <= 1)
}

test('all three types without images, with the default model', async () => {
  const out = await verdictsOf({ state: 'Hello! Could you please help me with my order?', questions: three })
  assert.is(out.model, 'sim-vision', 'the deployment default model')
  const { polite, kind, warmth } = out.verdicts
  assert.is(polite!.type, 'boolean')
  assert.is(polite!.value, true)
  assert.equal(Object.keys(polite!.probabilities), ['false', 'true'])
  assert.is(kind!.type, 'choice')
  assert.is(kind!.value, 'request')
  assert.equal(Object.keys(kind!.probabilities), ['greeting', 'request', 'complaint'])
  assert.is(warmth!.type, 'score')
  assert.is(warmth!.value, 4, 'levels count from 1')
  assert.is((warmth!.probabilities as number[]).length, 5)
  const expected = (warmth!.probabilities as number[]).reduce((s, p, i) => s + (i + 1) * p, 0)
  assert.ok(Math.abs(warmth!.expected_value! - expected) < 1e-12)
  for (const v of Object.values(out.verdicts)) checkDistribution(v)
  assert.is(out.usage.completion_tokens, 3, 'one token per question')
  assert.is(out.usage.total_tokens, out.usage.prompt_tokens + 3)
  assert.ok(out.usage.prompt_tokens_details.cached_tokens > 0, 'the questions share the cached prefix')
})

test('objects as state, images as data URLs; usage counts the shared part once per question', async () => {
  const image = `data:image/png;base64,${Buffer.from('not really a png').toString('base64')}`
  const one = await verdictsOf({
    state: { order: 42, items: ['tea', 'cake'] },
    images: [image],
    questions: { polite: three.polite },
  })
  const two = await verdictsOf({
    state: { order: 42, items: ['tea', 'cake'] },
    images: [image],
    questions: { polite: three.polite, polite2: three.polite },
  })
  assert.is(one.model, 'sim-vision')
  assert.ok(one.usage.prompt_tokens > 256, 'an image counts 256 prompt tokens')
  assert.is(two.usage.prompt_tokens, 2 * one.usage.prompt_tokens, 'state and image are counted once per question')
  assert.is(two.verdicts.polite!.value, true)
  const onlyImages = await verdictsOf({ images: [image], questions: { warmth: three.warmth } })
  assert.is(onlyImages.verdicts.warmth!.value, 4)
})

test('a family is answered by its none member', async () => {
  const res = await raw({ model: 'sim-chat', state: 'Thanks a lot!', questions: three })
  assert.is(res.status, 200)
  assert.is(res.body.model, 'sim-chat-instruct')
  assert.is(res.headers.get('x-gateway-model-variant'), 'sim-chat')
})

test('auto: a vision model when images are sent, a text model otherwise', async () => {
  const withImage = await verdictsOf({
    model: 'auto',
    images: ['data:image/png;base64,AAAA'],
    questions: { polite: three.polite },
  })
  assert.is(withImage.model, 'sim-vision')
  const text = await verdictsOf({ model: 'auto', state: 'plain text', questions: { polite: three.polite } })
  assert.is(text.model, 'sim-chat-instruct')
})

test('a reasoning model is retried with thinking skipped; usage counts both calls', async () => {
  const before = (await gw.simulator!.stats()).models['sim-thinker-8b']!.requests
  const body = { state: 'A short note about tea.', questions: three }
  const thinker = await verdictsOf({ ...body, model: 'sim-chat-thinking' })
  const instruct = await verdictsOf({ ...body, model: 'sim-chat-instruct' })
  assert.is(thinker.model, 'sim-chat-thinking')
  assert.is((await gw.simulator!.stats()).models['sim-thinker-8b']!.requests - before, 6, 'two calls per question')
  assert.is(thinker.usage.completion_tokens, 6, 'a thinking token and an answer token per question')
  assert.is(thinker.usage.prompt_tokens, 2 * instruct.usage.prompt_tokens, 'the prompt is counted for both calls')
  assert.is(thinker.verdicts.kind!.value, 'request')
  for (const v of Object.values(thinker.verdicts)) checkDistribution(v)
})

test('an answer outside the top 20 gets exactly 0; a model with no idea gets confidence 0', async () => {
  const out = await verdictsOf({
    state: 'Anything.',
    questions: {
      omitted: {
        type: 'choice',
        instructions: 'Which? [sim-verdict: omit=B]',
        criteria: { one: null, two: null, three: null },
      },
      unsure: { type: 'boolean', instructions: 'Is it? [sim-verdict: uniform]' },
    },
  })
  assert.is((out.verdicts.omitted!.probabilities as Record<string, number>).two, 0)
  assert.is(out.verdicts.unsure!.confidence, 0)
  assert.equal(out.verdicts.unsure!.probabilities, { false: 0.5, true: 0.5 })
})

async function expect502(body: unknown, message: string): Promise<void> {
  const res = await raw(body)
  assert.is(res.status, 502)
  assert.equal(res.body, { error: { message, type: 'gateway_error' } }, 'no partial result')
}

test('502 "backend returned no logprobs" when one question gets none', async () => {
  await expect502(
    {
      state: 'x',
      questions: { ...three, bare: { type: 'boolean', instructions: 'Well? [sim-verdict: no-logprobs]' } },
    },
    'backend returned no logprobs',
  )
})

test('502 "model produced no recognizable answer label"', async () => {
  await expect502(
    {
      state: 'x',
      questions: {
        ...three,
        lost: { type: 'score', instructions: 'Rate [sim-verdict: unrecognizable]', criteria: ['low', 'high'] },
      },
    },
    'model produced no recognizable answer label',
  )
})

test("502 for a model server's 422 on an image URL it could not fetch", async () => {
  await expect502(
    { images: ['https://unfetchable.example.com/cat.png'], questions: three },
    'upstream returned 422 failing to fetch media from URL',
  )
})

test('validation through HTTP: the spec messages reach the client', async () => {
  try {
    await verdictsOf({ state: 'x', questions: { a: { type: 'ranking', instructions: 'x' } } })
    assert.unreachable()
  } catch (err) {
    assert.instance(err, OpenAI.BadRequestError)
    assert.is(
      (err as InstanceType<typeof OpenAI.BadRequestError>).message,
      '400 invalid request: unknown variant for question type',
    )
  }
  const many = await raw({
    state: 'x',
    questions: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`q${i}`, three.polite])),
  })
  assert.is(many.status, 400)
  assert.equal(many.body, { error: { message: 'too many questions: 40 (maximum 32)', type: 'gateway_error' } })
  const big = await raw({ state: 'x'.repeat(2 * 1024 * 1024 + 1), questions: three })
  assert.is(big.status, 413)
  assert.equal(big.body, { error: { message: 'rendered state is too large', type: 'gateway_error' } })
})

test('a legacy key gets 404 {"detail":"Not Found"}', async () => {
  const res = await raw({ state: 'x', questions: three }, 'sk-legacy')
  assert.is(res.status, 404)
  assert.equal(res.body, { detail: 'Not Found' })
})

test.run()
