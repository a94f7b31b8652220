/**
 * The real embedding model of the embedded default, `use-lite` (the Universal Sentence Encoder
 * lite in the in-process embedder), end to end with the official openai SDK: through the
 * gateway's embeddings door and its HTTP adapter, queued, metered and recorded like any model.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import OpenAI from 'openai'
import { startTestGateway, type TestGateway } from '../support/gateway.js'

const test = suite('e2e embeddings: use-lite, the embedded sentence encoder')
let gw: TestGateway

test.before(async () => {
  gw = await startTestGateway()
})
test.after(() => gw.close())

const dot = (a: readonly number[], b: readonly number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0)
const cos = (a: readonly number[], b: readonly number[]) => dot(a, b) / Math.sqrt(dot(a, a) * dot(b, b))

async function refusal(call: () => Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await call()
  } catch (err) {
    if (err instanceof OpenAI.APIError) return err
    throw err
  }
  throw new Error('the call was served')
}

test('512-dimension unit vectors whose cosines follow meaning', async () => {
  const res = await gw.openai().embeddings.create({
    model: 'use-lite',
    input: [
      'The cat sat on the mat',
      'A kitten rests on a rug',
      'Capital gains tax law requires an annual filing of returns',
    ],
    encoding_format: 'float',
  })
  assert.is(res.model, 'use-lite')
  assert.equal(
    res.data.map((d) => d.index),
    [0, 1, 2],
  )
  const [cat, kitten, tax] = res.data.map((d) => d.embedding) as [number[], number[], number[]]
  for (const v of [cat, kitten, tax]) {
    assert.is(v.length, 512)
    assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-4, 'a unit vector')
  }
  // Measured: 0.75 against 0.06.
  const near = cos(cat, kitten)
  const far = cos(cat, tax)
  assert.ok(near - far > 0.3, `cos(cat, kitten) ${near.toFixed(3)} is well above cos(cat, tax) ${far.toFixed(3)}`)
  assert.ok(res.usage.prompt_tokens > 0)
  assert.is(res.usage.total_tokens, res.usage.prompt_tokens)
})

test('base64 (the SDK asks for it by default) decodes to the float vector', async () => {
  const viaBase64 = (await gw.openai().embeddings.create({ model: 'use-lite', input: 'The cat sat on the mat' }))
    .data[0]!.embedding
  const viaFloat = (
    await gw
      .openai()
      .embeddings.create({ model: 'use-lite', input: 'The cat sat on the mat', encoding_format: 'float' })
  ).data[0]!.embedding
  assert.is(viaBase64.length, 512)
  assert.ok(viaBase64.every((x, i) => Math.abs(x - viaFloat[i]!) < 1e-6))
})

test('a batch of 64 texts is served while the gateway answers a chat request', async () => {
  const texts = Array.from(
    { length: 64 },
    (_, i) => `Sentence number ${i} is about ${['rivers', 'taxes', 'cats', 'engines'][i % 4]} and nothing else.`,
  )
  const batch = gw.openai().embeddings.create({ model: 'use-lite', input: texts, encoding_format: 'float' })
  const chat = await gw
    .openai()
    .chat.completions.create({ model: 'sim-chat', messages: [{ role: 'user', content: 'hello' }], max_tokens: 4 })
  assert.ok(chat.choices[0]!.message.content !== null, 'the chat request completed')
  const res = await batch
  assert.is(res.data.length, 64)
  assert.ok(res.data.every((d, i) => d.index === i && d.embedding.length === 512))
})

test('one usage record with the prompt tokens the model counted', async () => {
  const { data, response } = await gw
    .openai()
    .embeddings.create({ model: 'use-lite', input: ['one record', 'for two texts'] })
    .withResponse()
  const id = response.headers.get('x-gateway-request-id')!
  const records = (await gw.generation().records.list({ from: 0, to: Date.now() + 1 }, 1000)).filter(
    (r) => r.requestId === id,
  )
  assert.is(records.length, 1)
  const r = records[0]!
  assert.equal(
    [r.route, r.model, r.status, r.promptTokens, r.completionTokens],
    ['embeddings', 'use-lite', 200, data.usage.prompt_tokens, 0],
  )
  assert.ok(r.promptTokens > 0 && r.value > 0)
})

test('token ids, other dimensions and text over 1024 tokens are 400', async () => {
  const ids = await refusal(() => gw.openai().embeddings.create({ model: 'use-lite', input: [1, 2, 3] }))
  assert.instance(ids, OpenAI.BadRequestError)
  assert.is(ids.message, '400 input: token ids are not accepted; model "use-lite" takes text only')
  const dims = await refusal(() => gw.openai().embeddings.create({ model: 'use-lite', input: 'x', dimensions: 256 }))
  assert.instance(dims, OpenAI.BadRequestError)
  assert.is(dims.message, '400 model use-lite does not support dimensions (its vectors have 512)')
  const long = await refusal(() =>
    gw.openai().embeddings.create({ model: 'use-lite', input: ['short', 'word '.repeat(1100)] }),
  )
  assert.instance(long, OpenAI.BadRequestError)
  assert.match(long.message, /maximum context length is 1024 tokens/)
  const same = await gw.openai().embeddings.create({ model: 'use-lite', input: 'x', dimensions: 512 })
  assert.is(same.data[0]!.embedding.length, 512)
})

test.run()
