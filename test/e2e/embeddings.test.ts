/**
 * POST /v1/embeddings end to end, with the clients people use over real sockets: the official
 * `openai` SDK (which asks for base64 by default and decodes it), LangChain's
 * `OpenAIEmbeddings` and the Vercel AI SDK's `embed` / `embedMany`. The simulator behind the
 * gateway makes deterministic unit vectors, so the same text gives the same vector whichever
 * client and encoding asked for it.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import OpenAI from 'openai'
import { OpenAIEmbeddings } from '@langchain/openai'
import { APICallError, embed, embedMany } from 'ai'
import { createOpenAI } from '@ai-sdk/openai'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { keysFile } from '../support/deployment-files.js'

const test = suite('e2e embeddings')
let gw: TestGateway

const keys = keysFile({}, [
  { id: 'broke', group: 'demo', secret: 'sk-broke', budget: { amount: 0, term: 'month' } },
  { id: 'slow', group: 'demo', secret: 'sk-slow', tokens_per_minute: 1 },
])

test.before(async () => {
  gw = await startTestGateway({ files: { 'config/keys.yaml': keys } })
})
test.after(() => gw.close())

const norm = (v: readonly number[]) => Math.hypot(...v)
const close = (a: readonly number[], b: readonly number[], eps = 1e-6) =>
  a.length === b.length && a.every((x, i) => Math.abs(x - b[i]!) < eps)

/** The float vector of `text` as the gateway serves it with `encoding_format: float`. */
async function floats(text: string, extra: Record<string, unknown> = {}): Promise<number[]> {
  const res = await gw
    .openai()
    .embeddings.create({ model: 'sim-embed', input: text, encoding_format: 'float', ...extra })
  return res.data[0]!.embedding
}

async function refusal(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call()
  } catch (err) {
    return err
  }
  throw new Error('the call was served')
}

test('openai SDK: a string, decoded from the base64 the SDK asks for by default, is the float vector', async () => {
  const res = await gw.openai().embeddings.create({ model: 'sim-embed', input: 'The quick brown fox' })
  assert.is(res.object, 'list')
  assert.is(res.data.length, 1)
  const v = res.data[0]!.embedding
  assert.is(v.length, 384)
  assert.ok(Math.abs(norm(v) - 1) < 1e-5, 'a unit vector')
  assert.ok(
    close(v, await floats('The quick brown fox')),
    'the same floats as encoding_format float (to float32 precision)',
  )
  assert.ok(res.usage.prompt_tokens > 0)
  assert.is(res.usage.total_tokens, res.usage.prompt_tokens)
})

test('openai SDK: an array keeps its order; token ids and token-id arrays are inputs too', async () => {
  const res = await gw
    .openai()
    .embeddings.create({ model: 'sim-embed', input: ['alpha', 'beta', 'alpha'], encoding_format: 'float' })
  assert.equal(
    res.data.map((d) => d.index),
    [0, 1, 2],
  )
  assert.equal(res.data[0]!.embedding, res.data[2]!.embedding)
  assert.not.equal(res.data[0]!.embedding, res.data[1]!.embedding)
  const ids = await gw.openai().embeddings.create({ model: 'sim-embed', input: [1, 2, 3] })
  assert.is(ids.data.length, 1)
  assert.is(ids.usage.prompt_tokens, 3)
  const many = await gw.openai().embeddings.create({
    model: 'sim-embed',
    input: [
      [1, 2],
      [3, 4, 5],
    ],
  })
  assert.is(many.data.length, 2)
  assert.is(many.usage.prompt_tokens, 5)
})

test('openai SDK: encoding_format base64 asked explicitly is little-endian float32', async () => {
  const res = await gw.openai().embeddings.create({ model: 'sim-embed', input: 'gamma', encoding_format: 'base64' })
  const text = res.data[0]!.embedding as unknown as string
  assert.type(text, 'string')
  const buf = Buffer.from(text, 'base64')
  const decoded = Array.from({ length: buf.length / 4 }, (_, i) => buf.readFloatLE(i * 4))
  assert.ok(close(decoded, await floats('gamma')))
})

test('openai SDK: dimensions of a Matryoshka model give the shorter, renormalised vector; more than it has is 400', async () => {
  const full = await floats('delta')
  const short = (await gw.openai().embeddings.create({ model: 'sim-embed', input: 'delta', dimensions: 64 })).data[0]!
    .embedding
  assert.is(short.length, 64)
  assert.ok(Math.abs(norm(short) - 1) < 1e-5)
  const head = full.slice(0, 64)
  assert.ok(
    close(
      short,
      head.map((x) => x / norm(head)),
      1e-5,
    ),
    'the head of the full vector',
  )
  const err = await refusal(() =>
    gw.openai().embeddings.create({ model: 'sim-embed', input: 'delta', dimensions: 500 }),
  )
  assert.instance(err, OpenAI.BadRequestError)
  assert.is(
    (err as InstanceType<typeof OpenAI.BadRequestError>).message,
    '400 model sim-embed returns at most 384 dimensions; 500 were asked',
  )
})

test('wrong model types, empty, too many and too long inputs: 400 with a message that says so', async () => {
  const cases: [() => Promise<unknown>, string][] = [
    [
      () => gw.openai().embeddings.create({ model: 'sim-chat-instruct', input: 'x' }),
      'model sim-chat-instruct is not an embedding model',
    ],
    [
      () => gw.openai().chat.completions.create({ model: 'sim-embed', messages: [{ role: 'user', content: 'x' }] }),
      'model sim-embed is not a chat model',
    ],
    [
      () => gw.openai().embeddings.create({ model: 'sim-embed', input: '' }),
      'invalid request: /input must NOT have fewer than 1 characters',
    ],
    [
      () => gw.openai().embeddings.create({ model: 'sim-embed', input: [] }),
      'invalid request: /input must NOT have fewer than 1 items',
    ],
    [
      () => gw.openai().embeddings.create({ model: 'sim-embed', input: ['a', ''] }),
      'invalid request: /input/1 must NOT have fewer than 1 characters',
    ],
    [
      () => gw.openai().embeddings.create({ model: 'sim-embed', input: Array(2049).fill('x') }),
      'invalid request: /input must NOT have more than 2048 items',
    ],
    [
      () => gw.openai().embeddings.create({ model: 'sim-embed', input: [Array(513).fill(7)] }),
      'input[0] has 513 tokens; model sim-embed takes at most 512',
    ],
  ]
  for (const [call, message] of cases) {
    const err = await refusal(call)
    assert.instance(err, OpenAI.BadRequestError, message)
    assert.is((err as InstanceType<typeof OpenAI.APIError>).message, `400 ${message}`)
  }
  // Text is counted by the model server's tokenizer: its context-window 400 passes through.
  const long = await refusal(() => gw.openai().embeddings.create({ model: 'sim-embed', input: 'word '.repeat(1000) }))
  assert.instance(long, OpenAI.BadRequestError)
  assert.match((long as Error).message, /the model's context length is only 512 tokens/)
})

test('budgets: an exhausted key gets 403, a key over its per-minute tokens 429, through each SDK', async () => {
  const broke = await refusal(() => gw.openai('sk-broke').embeddings.create({ model: 'sim-embed', input: 'x' }))
  assert.instance(broke, OpenAI.PermissionDeniedError)
  const slow = await refusal(() => gw.openai('sk-slow').embeddings.create({ model: 'sim-embed', input: 'x' }))
  assert.instance(slow, OpenAI.RateLimitError)
  const ai = createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-broke' })
  const err = await refusal(() => embed({ model: ai.embedding('sim-embed'), value: 'x', maxRetries: 0 }))
  assert.ok(APICallError.isInstance(err))
  assert.is((err as APICallError).statusCode, 403)
  assert.is((err as APICallError).message, 'api key term budget exhausted')
})

test('LangChain OpenAIEmbeddings: embedQuery and embedDocuments', async () => {
  const lc = new OpenAIEmbeddings({
    model: 'sim-embed',
    apiKey: TEST_KEY,
    maxRetries: 0,
    configuration: { baseURL: `${gw.url}/v1` },
  })
  const query = await lc.embedQuery('The quick brown fox')
  assert.ok(close(query, await floats('The quick brown fox')))
  const docs = await lc.embedDocuments(['one', 'two', 'one'])
  assert.is(docs.length, 3)
  assert.equal(docs[0], docs[2])
  assert.ok(close(docs[1]!, await floats('two')))
  const short = await new OpenAIEmbeddings({
    model: 'sim-embed',
    apiKey: TEST_KEY,
    dimensions: 32,
    maxRetries: 0,
    configuration: { baseURL: `${gw.url}/v1` },
  }).embedQuery('one')
  assert.is(short.length, 32)
})

test('Vercel AI SDK: embed and embedMany, with dimensions; unknown dimensions are an APICallError 400', async () => {
  const ai = createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: TEST_KEY })
  const one = await embed({ model: ai.embedding('sim-embed'), value: 'The quick brown fox', maxRetries: 0 })
  assert.ok(close(one.embedding, await floats('The quick brown fox'), 1e-9), 'floats asked, floats served')
  assert.ok(one.usage.tokens > 0)
  const many = await embedMany({ model: ai.embedding('sim-embed'), values: ['one', 'two', 'three'], maxRetries: 0 })
  assert.is(many.embeddings.length, 3)
  assert.ok(close(many.embeddings[1]!, await floats('two'), 1e-9))
  const short = await embed({
    model: ai.embedding('sim-embed'),
    value: 'one',
    maxRetries: 0,
    providerOptions: { openai: { dimensions: 16 } },
  })
  assert.is(short.embedding.length, 16)
  const err = await refusal(() =>
    embed({
      model: ai.embedding('sim-embed'),
      value: 'one',
      maxRetries: 0,
      providerOptions: { openai: { dimensions: 1000 } },
    }),
  )
  assert.ok(APICallError.isInstance(err))
  assert.is((err as APICallError).statusCode, 400)
  assert.is((err as APICallError).message, 'model sim-embed returns at most 384 dimensions; 1000 were asked')
})

test.run()
