/**
 * The rerank plugin against a fake model server speaking each rerank API: what it sends where,
 * how it ranks and cuts the scores, the Cohere/Jina reply, usage reported or counted, and
 * upstream errors and malformed replies.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import rerank from '../../../plugins/rerank/index.js'
import { makeKernel, runPlugin } from '../../../bin/testing/harness.js'
import { startFakeUpstream, type FakeUpstream } from '../../support/fake-upstream.js'
import { estimatedRerankTokens, rerankDemand, type RerankReply } from '../../../protocols/rerank/ranking.js'
import type { Kernel } from '../../../kernel/contract/kernel.js'
import type { ModelConfig } from '../../../schemas/models.schema.js'

const test = suite('plugin rerank: Cohere, TEI and vLLM score servers')
let upstream: FakeUpstream
let kernel: Kernel

test.before(async () => {
  upstream = await startFakeUpstream()
  kernel = makeKernel({ simulatorUrl: upstream.url })
})
test.after(async () => upstream.close())

const query = 'how do cats sleep'
const documents = ['stocks fell', 'cats sleep all day', 'dogs sleep at night']

function serve(body: unknown, status = 200): void {
  upstream.handle((_req, _body, res) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
  )
}

function run(body: Record<string, unknown>, model: Partial<ModelConfig> = {}) {
  const m = { ...kernel.catalog.model('sim-rerank')!, ...model }
  const full = { model: 'sim-rerank', query, documents, ...body }
  return runPlugin(
    rerank,
    {},
    {
      kernel,
      state: { model: { requested: 'sim-rerank', model: m } },
      body: full,
      demand: () => rerankDemand(query, documents),
    },
  )
}

const sent = () => upstream.received.at(-1)!
const replyOf = (r: { reply?: unknown }) => (r.reply as { body: RerankReply }).body

test('cohere: POST /v2/rerank with the served name and top_n; results ranked; the server’s tokens', async () => {
  serve({
    id: 'x',
    model: 'sim-rerank',
    usage: { total_tokens: 42 },
    results: [
      { index: 2, relevance_score: 0.6 },
      { index: 1, relevance_score: 0.95 },
    ],
  })
  const r = await run({ top_n: 2, return_documents: true })
  assert.is(r.error, undefined)
  assert.is(sent().path, '/v2/rerank')
  assert.equal(sent().body, { model: 'sim-rerank', query, documents, top_n: 2 })
  const body = replyOf(r)
  assert.is(body.model, 'sim-rerank')
  assert.match(body.id, /^rerank-/)
  assert.equal(body.results, [
    { index: 1, relevance_score: 0.95, document: { text: documents[1]! } },
    { index: 2, relevance_score: 0.6, document: { text: documents[2]! } },
  ])
  assert.equal(body.usage, { total_tokens: 42 })
  assert.equal(
    [r.ex.usage.used().inputTokens, r.ex.usage.used().outputTokens, r.ex.usage.used().source],
    [42, 0, 'reported'],
  )
  assert.is(r.ex.usage.model, 'sim-rerank')
})

test('a top_n beyond the documents keeps them all; {text} documents are sent as strings; rerank_path overrides', async () => {
  serve({
    results: [
      { index: 0, relevance_score: 0.1 },
      { index: 1, relevance_score: 0.9 },
      { index: 2, relevance_score: 0.5 },
    ],
  })
  const r = await run({ top_n: 10, documents: documents.map((text) => ({ text })) }, { rerank_path: '/v1/rerank' })
  assert.is(sent().path, '/v1/rerank')
  assert.equal(sent().body, { model: 'sim-rerank', query, documents, top_n: 3 })
  assert.equal(
    replyOf(r).results.map((x) => x.index),
    [1, 2, 0],
  )
  assert.is(replyOf(r).results[0]!.document, undefined, 'no documents unless asked')
  // Cohere reports search units, not tokens: the gateway counts.
  assert.is(replyOf(r).usage.total_tokens, estimatedRerankTokens(query, documents))
  assert.is(r.ex.usage.used().inputTokens, estimatedRerankTokens(query, documents))
})

test('tei: POST /rerank with texts, no model; the bare array ranked and cut by the gateway', async () => {
  serve([
    { index: 1, score: 0.97 },
    { index: 2, score: 0.4 },
    { index: 0, score: 0.02 },
  ])
  const r = await run({ top_n: 1 }, { rerank_api: 'tei' })
  assert.is(sent().path, '/rerank')
  assert.equal(sent().body, { query, texts: documents, raw_scores: false, return_text: false })
  assert.equal(replyOf(r).results, [{ index: 1, relevance_score: 0.97 }])
  assert.is(r.ex.usage.used().inputTokens, estimatedRerankTokens(query, documents))
})

test('vllm-score: POST /score with text_1 and text_2; scores in document order ranked by the gateway', async () => {
  serve({
    object: 'list',
    model: 'bge-reranker',
    data: [0.2, 0.9, 0.5].map((score, index) => ({ index, object: 'score', score })),
    usage: { prompt_tokens: 27, total_tokens: 27 },
  })
  const r = await run({ top_n: 2 }, { rerank_api: 'vllm-score' })
  assert.is(sent().path, '/score')
  assert.equal(sent().body, { model: 'sim-rerank', text_1: query, text_2: documents })
  assert.equal(replyOf(r).results, [
    { index: 1, relevance_score: 0.9 },
    { index: 2, relevance_score: 0.5 },
  ])
  assert.is(r.ex.usage.used().inputTokens, 27)
  assert.is(r.ex.usage.upstreamModel, 'bge-reranker')
})

test('a malformed reply is 502 naming what is wrong; a server error passes through with its status and message', async () => {
  serve({ results: [{ index: 7, relevance_score: 0.5 }] })
  const bad = await run({})
  assert.equal(
    [bad.error?.status, bad.error?.message],
    [502, 'upstream sent a malformed rerank reply: index 7 is not one of the 3 documents'],
  )
  upstream.handle((_req, _body, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('not json'))
  assert.is((await run({})).error?.status, 502)
  serve(
    { error: { message: 'The model does not support Rerank API', type: 'BadRequestError', param: null, code: 400 } },
    400,
  )
  const refused = await run({})
  assert.equal([refused.error?.status, refused.error?.message], [400, 'The model does not support Rerank API'])
})

test('a model that is not a reranker is refused before any call', async () => {
  const before = upstream.received.length
  const r = await run({}, { model_type: 'embedding' })
  assert.equal([r.error?.status, r.error?.message], [400, 'model sim-rerank is not a rerank model'])
  assert.is(upstream.received.length, before)
})

test.run()
