/**
 * The simulated reranker: Cohere/Jina-shaped /v1/rerank and /v2/rerank, TEI's /rerank, vLLM's
 * /score; scores that put the document about the query first; usage; vLLM's errors.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { RunningSimulator } from '../../sim/index.js'
import { postError, postJson, startTestSimulator, testModels } from './helpers.js'
import { relevance, terms } from '../../sim/rerank-score.js'

const test = suite<{ sim: RunningSimulator }>('sim: reranking')
test.before(async (ctx) => {
  ctx.sim = await startTestSimulator({
    models: [...testModels, { name: 'sim-rerank', kind: 'rerank', max_model_len: 64 }],
  })
})
test.after(async (ctx) => ctx.sim.close())

const query = 'How do cats sleep?'
const documents = [
  'Stock markets fell on Tuesday.',
  'Cats sleep for up to sixteen hours a day.',
  'Dogs sleep at night.',
]

interface Reranked {
  id: string
  model: string
  usage: { total_tokens: number }
  results: Array<{ index: number; relevance_score: number; document?: { text: string } }>
}

test('scoring: pairwise term overlap squashed to (0, 1); plurals and function words handled', () => {
  assert.equal(terms('The Cats, glass!'), ['the', 'cat', 'glass'])
  const best = relevance(query, documents[1]!)
  const none = relevance(query, documents[0]!)
  assert.ok(best > 0.9 && best < 1, `relevant: ${best}`)
  assert.ok(none > 0 && none < 0.05, `unrelated: ${none}`)
  assert.ok(relevance(query, 'What do you do?') < 0.1, 'a shared function word is not relevance')
  const half = relevance(query, documents[2]!)
  assert.ok(half > none && half < best, `half the query: ${half}`)
  assert.is(relevance(query, documents[1]!), best, 'deterministic')
})

test('POST /v1/rerank and /v2/rerank: vLLM’s Cohere/Jina shape, best first, top_n, usage per pair', async ({ sim }) => {
  for (const path of ['/v1/rerank', '/v2/rerank', '/rerank']) {
    const { status, body } = await postJson<Reranked>(sim, path, { model: 'sim-rerank', query, documents })
    assert.is(status, 200)
    assert.is(body.model, 'sim-rerank')
    assert.equal(
      body.results.map((r) => r.index),
      [1, 2, 0],
    )
    assert.is(body.results[0]!.document!.text, documents[1])
    // Each pair: the query's start token and a token per four bytes, then the document's.
    const q = 1 + Math.ceil(Buffer.byteLength(query) / 4)
    assert.ok(body.usage.total_tokens >= 3 * (q + 2), `tokens: ${body.usage.total_tokens}`)
  }
  const cut = await postJson<Reranked>(sim, '/v1/rerank', {
    model: 'sim-rerank',
    query,
    documents: documents.map((text) => ({ text })),
    top_n: 1,
    return_documents: false,
  })
  assert.equal(
    cut.body.results.map((r) => [r.index, r.document]),
    [[1, undefined]],
  )
})

test("POST /rerank with texts: TEI's bare array; raw_scores are logits; return_text", async ({ sim }) => {
  const { status, body } = await postJson<Array<{ index: number; score: number; text?: string }>>(sim, '/rerank', {
    query,
    texts: documents,
    return_text: true,
  })
  assert.is(status, 200)
  assert.equal(
    body.map((r) => r.index),
    [1, 2, 0],
  )
  assert.is(body[0]!.text, documents[1])
  const raw = await postJson<Array<{ index: number; score: number }>>(sim, '/rerank', {
    query,
    texts: documents,
    raw_scores: true,
  })
  assert.ok(Math.abs(1 / (1 + Math.exp(-raw.body[0]!.score)) - body[0]!.score) < 1e-9)
})

test("POST /score: vLLM's shape in document order; one against many, or pairs", async ({ sim }) => {
  const { status, body } = await postJson<{
    object: string
    data: Array<{ index: number; object: string; score: number }>
    usage: { prompt_tokens: number; total_tokens: number }
  }>(sim, '/score', { model: 'sim-rerank', text_1: query, text_2: documents })
  assert.is(status, 200)
  assert.equal(
    body.data.map((d) => [d.index, d.object]),
    [
      [0, 'score'],
      [1, 'score'],
      [2, 'score'],
    ],
  )
  assert.ok(body.data[1]!.score > body.data[0]!.score)
  assert.is(body.usage.prompt_tokens, body.usage.total_tokens)
  const pairs = await postJson<{ data: Array<{ score: number }> }>(sim, '/v1/score', {
    model: 'sim-rerank',
    text_1: [query, 'stock markets'],
    text_2: [documents[1], documents[0]],
  })
  assert.ok(pairs.body.data.every((d) => d.score > 0.9))
})

test("errors as vLLM's: another model's kind, unknown model, missing fields, a pair beyond the window", async ({
  sim,
}) => {
  const wrong = await postError(sim, '/v1/rerank', { model: 'sim-instruct-8b', query, documents })
  assert.equal([wrong.status, wrong.body.error.message], [400, 'The model does not support Rerank API'])
  const score = await postError(sim, '/score', { model: 'sim-embed-384', text_1: 'a', text_2: 'b' })
  assert.equal([score.status, score.body.error.message], [400, 'The model does not support Score API'])
  assert.is((await postError(sim, '/v1/rerank', { model: 'nope', query, documents })).status, 404)
  assert.equal(
    (await postError(sim, '/v1/rerank', { model: 'sim-rerank', documents })).body.error.message,
    'query: Field required',
  )
  assert.equal(
    (await postError(sim, '/v1/rerank', { model: 'sim-rerank', query, documents: [] })).body.error.message,
    'documents: List should have at least 1 item after validation, not 0',
  )
  const long = await postError(sim, '/v1/rerank', { model: 'sim-rerank', query, documents: ['word '.repeat(200)] })
  assert.is(long.status, 400)
  assert.match(long.body.error.message, /context length is only 64 tokens/)
})

test.run()
