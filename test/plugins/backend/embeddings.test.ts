/**
 * The backend's embeddings endpoint against a fake model server: what it sends, and how it
 * smooths replies (floats where base64 was asked, Infinity's `object`, whole vectors where
 * `dimensions` was asked, usage in OpenAI's shape).
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import backend from '../../../plugins/backend/index.js'
import { makeKernel, runPlugin } from '../../../bin/testing/harness.js'
import { startFakeUpstream, type FakeUpstream } from '../../support/fake-upstream.js'
import { embeddingsDemand } from '../../../protocols/openai/embeddings.js'
import type { Kernel } from '../../../kernel/contract/kernel.js'
import type { ModelConfig } from '../../../schemas/models.schema.js'

const test = suite('plugin backend: embeddings')
let upstream: FakeUpstream
let kernel: Kernel

test.before(async () => {
  upstream = await startFakeUpstream()
  kernel = makeKernel({ simulatorUrl: upstream.url })
})
test.after(async () => upstream.close())

const vector = [0.6, 0.8, 0, 0]
const reply = (embedding: unknown, extra: object = {}) => ({
  object: 'list',
  model: 'sim-embed-384',
  data: [{ index: 0, object: 'embedding', embedding }],
  usage: { prompt_tokens: 3, total_tokens: 3, completion_tokens: 0, prompt_tokens_details: null },
  ...extra,
})
const b64 = (v: number[]) => Buffer.from(new Float32Array(v).buffer).toString('base64')

function serve(body: object): void {
  upstream.handle((_req, _body, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
  )
}

function run(body: Record<string, unknown>, model: Partial<ModelConfig> = {}) {
  const m = { ...kernel.catalog.model('sim-embed')!, ...model }
  return runPlugin(
    backend,
    { endpoint: 'embeddings' },
    { kernel, state: { model: { requested: 'sim-embed', model: m } }, body, demand: (ex) => embeddingsDemand(ex.body) },
  )
}

const sent = () => upstream.received.at(-1)!
type Embeddings = ReturnType<typeof reply>
/** The reply's body, whether it left as the server's own text or re-serialized. */
const bodyOf = (r: { reply?: unknown }): Embeddings => {
  const out = r.reply as { kind: string; body?: Embeddings; text?: string }
  return out.kind === 'text' ? (JSON.parse(out.text!) as Embeddings) : out.body!
}

test('sends the served name to /v1/embeddings, never as a stream; a reply that needs nothing leaves as the server wrote it', async () => {
  const written = JSON.stringify(reply(vector))
  upstream.handle((_req, _body, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(written))
  const r = await run({ model: 'sim-embed', input: 'abc', user: 'u-1', stream: true })
  assert.is(r.error, undefined)
  assert.is(sent().path, '/v1/embeddings')
  assert.equal(sent().body, { model: 'sim-embed-384', input: 'abc', user: 'u-1' })
  assert.equal(r.reply, { kind: 'text', status: 200, contentType: 'application/json', text: written })
  assert.equal(
    [r.ex.usage.used().inputTokens, r.ex.usage.used().outputTokens, r.ex.usage.used().source],
    [3, 0, 'reported'],
  )
  assert.is(r.ex.usage.upstreamModel, 'sim-embed-384')
})

test('a usage without total_tokens gets it', async () => {
  serve({ ...reply(vector), usage: { prompt_tokens: 4 } })
  assert.equal(bodyOf(await run({ input: 'abcd' })).usage, { prompt_tokens: 4, total_tokens: 4 })
})

test('base64 asked of a server that sends floats: the gateway encodes little-endian float32', async () => {
  serve(reply(vector))
  const r = await run({ input: 'abc', encoding_format: 'base64' })
  assert.is((sent().body as { encoding_format: string }).encoding_format, 'base64')
  const text = bodyOf(r).data[0]!.embedding as string
  const buf = Buffer.from(text, 'base64')
  assert.equal(
    Array.from({ length: 4 }, (_, i) => buf.readFloatLE(i * 4)),
    Array.from(new Float32Array(vector)),
  )
})

test('base64 from a server that did it is passed on untouched; floats asked of one that sent base64 are decoded', async () => {
  serve(reply(b64(vector)))
  const asked = await run({ input: 'abc', encoding_format: 'base64' })
  assert.is(bodyOf(asked).data[0]!.embedding, b64(vector))
  const unasked = await run({ input: 'abc' })
  assert.equal(bodyOf(unasked).data[0]!.embedding, Array.from(new Float32Array(vector)))
})

test("Infinity's top-level object becomes list; a reply without usage is charged its estimate", async () => {
  serve({ object: 'embedding', model: 'm', data: [{ index: 0, embedding: vector }] })
  const r = await run({ input: 'abc' })
  const body = bodyOf(r)
  assert.is(body.object, 'list')
  assert.is(body.data[0]!.object, 'embedding')
  assert.equal([r.ex.usage.used().inputTokens, r.ex.usage.used().source], [3 + 2, 'estimated'])
})

test('dimensions: passed to a Matryoshka model, whose whole vectors are shortened and renormalised if the server ignored it', async () => {
  serve(reply(vector))
  const r = await run({ input: 'abc', dimensions: 1 })
  assert.is((sent().body as { dimensions: number }).dimensions, 1)
  assert.equal(bodyOf(r).data[0]!.embedding, [1])
  // A fixed-size model's server is not told its own size (vLLM refuses `dimensions` outright).
  serve(reply(vector))
  await run({ input: 'abc', dimensions: 4 }, { supports_dimensions: false, dimensions: 4 })
  assert.not.ok('dimensions' in (sent().body as object))
})

test('demand: an upper bound of the input tokens (bytes and two special tokens per text, one per token id), nothing generated', () => {
  assert.equal(embeddingsDemand({ input: 'héllo' }), {
    inputTokens: 6 + 2,
    outputTokens: 0,
    choices: 1,
    adjustable: false,
  })
  assert.is(embeddingsDemand({ input: ['ab', 'c'] }).inputTokens, 4 + 3)
  assert.is(embeddingsDemand({ input: [5, 6, 7] }).inputTokens, 3)
  assert.is(embeddingsDemand({ input: [[5, 6], [7]] }).inputTokens, 3)
})

test.run()
