/**
 * POST /v1/rerank end to end over real sockets, with plain fetch and the Cohere/Jina body: the
 * gateway in front of the simulator's reranker, reached through each of the three APIs
 * (Cohere-compatible /v2/rerank, TEI's /rerank, vLLM's /score) with the same reply; the
 * relevant document first, top_n, return_documents, a usage record, and the 400s.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { modelsWith } from '../support/deployment-files.js'
import type { UsageRecord } from '../../kernel/contract/records.js'
import type { RerankReply } from '../../protocols/rerank/ranking.js'

const test = suite('e2e rerank')
let gw: TestGateway

// The same simulated reranker, spoken to through each API (each with its own reported name, so
// that the catalog can tell them apart).
const models = modelsWith({
  models: [
    {
      id: 'sim-rerank-tei',
      model_type: 'rerank',
      backend: 'sim',
      served_name: 'sim-rerank',
      reported_name: 'sim-rerank-tei',
      rerank_api: 'tei',
      context_window: 512,
      prices: { prompt: 0.02 },
    },
    {
      id: 'sim-rerank-score',
      model_type: 'rerank',
      backend: 'sim',
      served_name: 'sim-rerank',
      reported_name: 'sim-rerank-score',
      rerank_api: 'vllm-score',
      context_window: 512,
      prices: { prompt: 0.02 },
    },
    {
      id: 'sim-rerank-v1',
      model_type: 'rerank',
      backend: 'sim',
      served_name: 'sim-rerank',
      reported_name: 'sim-rerank-v1',
      rerank_path: '/v1/rerank',
      context_window: 512,
    },
  ],
})

test.before(async () => {
  gw = await startTestGateway({ files: { 'config/models.yaml': models } })
})
test.after(() => gw.close())

const query = 'How long do cats sleep each day?'
const documents = [
  'The stock market closed higher on Friday.',
  'Dogs often sleep at night and nap in the afternoon.',
  'Cats sleep between twelve and sixteen hours each day.',
  'Paris is the capital of France.',
]

async function post(
  body: unknown,
  key = TEST_KEY,
): Promise<{ status: number; body: RerankReply & { error?: { message: string } } }> {
  const res = await fetch(`${gw.url}/v1/rerank`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as RerankReply & { error?: { message: string } } }
}

test('the relevant document first, then the partly relevant; scores in (0, 1); usage', async () => {
  const { status, body } = await post({ model: 'sim-rerank', query, documents })
  assert.is(status, 200)
  assert.is(body.model, 'sim-rerank')
  assert.equal(
    body.results.map((r) => r.index),
    [2, 1, 0, 3],
  )
  assert.ok(body.results.every((r) => r.relevance_score > 0 && r.relevance_score < 1))
  assert.ok(body.results[0]!.relevance_score > 0.9)
  assert.is(body.results[0]!.document, undefined)
  assert.ok(body.usage.total_tokens > 0)
})

test('top_n and return_documents; {text} documents', async () => {
  const { body } = await post({
    model: 'sim-rerank',
    query,
    documents: documents.map((text) => ({ text })),
    top_n: 2,
    return_documents: true,
  })
  assert.equal(
    body.results.map((r) => [r.index, r.document?.text]),
    [
      [2, documents[2]],
      [1, documents[1]],
    ],
  )
})

test('the three server APIs give the same ranking and scores', async () => {
  const cohere = (await post({ model: 'sim-rerank', query, documents, top_n: 3 })).body
  for (const model of ['sim-rerank-tei', 'sim-rerank-score', 'sim-rerank-v1']) {
    const { status, body } = await post({ model, query, documents, top_n: 3 })
    assert.is(status, 200, model)
    assert.is(body.model, model)
    assert.equal(body.results, cohere.results, model)
  }
  // vLLM's /score counts tokens as /rerank does; TEI reports none, so the gateway counts.
  assert.is(
    (await post({ model: 'sim-rerank-score', query, documents })).body.usage.total_tokens,
    cohere.usage.total_tokens,
  )
})

test('one usage record: route rerank, the model, its tokens and a value', async () => {
  const { body } = await post({ model: 'sim-rerank', query, documents })
  await gw.generation().records.flush()
  const records = (await gw.generation().records.list({ from: 0, to: Date.now() + 1 }, 1000)) as UsageRecord[]
  const r = records.filter((x) => x.route === 'rerank' && x.model === 'sim-rerank').at(-1)!
  assert.ok(r, 'a record')
  assert.equal(
    [r.status, r.usageSource, r.promptTokens, r.completionTokens],
    [200, 'reported', body.usage.total_tokens, 0],
  )
  assert.ok(r.value > 0)
})

test('400s: not a reranker, no documents, too many, an empty one, top_n 0; 404 an unknown model', async () => {
  const notA = await post({ model: 'sim-embed', query, documents })
  assert.is(notA.status, 400)
  assert.match(notA.body.error!.message, /sim-embed/)
  for (const body of [
    { model: 'sim-rerank', query },
    { model: 'sim-rerank', query, documents: [] },
    { model: 'sim-rerank', query, documents: Array.from({ length: 1001 }, () => 'x') },
    { model: 'sim-rerank', query, documents: ['a', ''] },
    { model: 'sim-rerank', query: '', documents },
    { model: 'sim-rerank', query, documents, top_n: 0 },
  ]) {
    const r = await post(body)
    assert.is(r.status, 400, JSON.stringify(body).slice(0, 80))
    assert.type(r.body.error?.message, 'string')
  }
  assert.is((await post({ model: 'sim-nope', query, documents })).status, 404)
})

test('a document beyond the model window is cut to fit it: scored, and given back whole', async () => {
  const long = 'word '.repeat(2000)
  const r = await post({ model: 'sim-rerank', query, documents: [long, 'cats sleep'], return_documents: true })
  assert.is(r.status, 200, JSON.stringify(r.body).slice(0, 200))
  const results = r.body.results as { index: number; document?: { text: string } }[]
  assert.equal(results.map((x) => x.index).sort(), [0, 1])
  assert.is(results.find((x) => x.index === 0)!.document?.text, long, 'the client gets its own document back')
})

test('more than the route’s 4 MiB: 413', async () => {
  const r = await fetch(`${gw.url}/v1/rerank`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim-rerank', query, documents: ['x'.repeat(5 * 1024 * 1024)] }),
  })
  assert.is(r.status, 413)
})

test.run()
