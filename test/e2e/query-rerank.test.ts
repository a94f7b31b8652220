/**
 * POST /query/v1/rerank end to end: both token kinds, the envelope and its usage_metric, the
 * reranking visible in the usage records under the project's key, and the 400/401 answers in
 * the Query service's error shape.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { TEST_DEV_TOKEN, TEST_SERVICE_TOKEN, type TestGateway } from '../support/gateway.js'
import { demoRecords, isQueryError, post, startQueryGateway } from './query-bodies-gateway.js'

const test = suite('e2e Query service: rerank body type')
let gw: TestGateway

test.before(async () => {
  gw = await startQueryGateway()
})
test.after(() => gw.close())

const documents = [
  'The stock market rose on Friday.',
  'Cats sleep twelve to sixteen hours a day.',
  'Paris is the capital of France.',
]
const body = { query: 'How long do cats sleep?', documents, reranker_model: 'sim-rerank' }

interface Ranked {
  index: number
  relevance_score: number
  document: string
}

test('developer token: ranked documents in the envelope, usage_metric from the recorded rerank call', async () => {
  const since = Date.now()
  const { status, body: out } = await post(
    gw,
    'rerank',
    { ...body, project_id: 'demo', reranker_provider: 'cohere', top_n: 2 },
    TEST_DEV_TOKEN,
  )
  assert.is(status, 200, JSON.stringify(out))
  assert.is(out.file, 'rerank')
  const ranked = out.response!.response as Ranked[]
  assert.is(ranked.length, 2, 'top_n')
  assert.is(ranked[0]!.document, documents[0 + ranked[0]!.index])
  assert.ok(ranked[0]!.relevance_score >= ranked[1]!.relevance_score, 'best first')
  assert.is(ranked[0]!.index, 1, 'the cats document first')
  const meta = out.response!.metadata
  assert.is(out.query_id, meta.query_id)
  assert.equal(meta.sources, {})
  assert.is(meta.reranker_model, 'sim-rerank')
  const m = meta.usage_metric
  const parts = Object.values(m.input_token_details).reduce((s, n) => s + n, 0)
  assert.is(parts, m.input_token_count, 'the parts add up')
  assert.ok(m.input_token_details.user_query > 0 && m.input_token_details.incontext_text > 0)
  assert.is(m.output_token_count, 0)
  const records = (await demoRecords(gw, since)).filter((r) => r.route === 'rerank')
  assert.is(records.length, 1, 'one rerank call under key demo')
  assert.equal(
    [records[0]!.key, records[0]!.model, records[0]!.prompt_tokens],
    ['demo', 'sim-rerank', m.input_token_count],
  )
  assert.ok(Math.abs(records[0]!.value - m.total_token_cost) < 1e-12, 'the cost is the recorded value')
})

test('service token without project_id', async () => {
  const { status, body: out } = await post(gw, 'rerank', body, TEST_SERVICE_TOKEN)
  assert.is(status, 200, JSON.stringify(out))
  assert.is((out.response!.response as Ranked[]).length, 3)
})

test('bad bodies: 400 naming the field, in the query error shape', async () => {
  const empty = await post(gw, 'rerank', { ...body, documents: [], project_id: 'demo' }, TEST_DEV_TOKEN)
  assert.is(empty.status, 400)
  assert.ok(isQueryError(empty.body, 400), JSON.stringify(empty.body))
  assert.match(empty.body.error!.message, /documents/)
  const noModel = await post(gw, 'rerank', { query: 'q', documents }, TEST_SERVICE_TOKEN)
  assert.is(noModel.status, 400)
  assert.match(noModel.body.error!.message, /reranker_model/)
  const unknown = await post(gw, 'rerank', { ...body, top_k: 3 }, TEST_SERVICE_TOKEN)
  assert.is(unknown.status, 400)
  assert.match(unknown.body.error!.message, /additional properties|top_k/)
  const provider = await post(gw, 'rerank', { ...body, reranker_provider: 'tei' }, TEST_SERVICE_TOKEN)
  assert.is(provider.status, 400)
  assert.is(
    provider.body.error!.message,
    'reranker_provider tei does not match reranker_model sim-rerank, whose server speaks cohere',
  )
  const source = await post(gw, 'rerank', { ...body, request_source: 'elsewhere' }, TEST_SERVICE_TOKEN)
  assert.is(source.status, 400)
  assert.match(source.body.error!.message, /request_source must be "override_params"/)
})

test('the gateway route refuses what it refuses: an unknown reranker, a chat model', async () => {
  const unknown = await post(gw, 'rerank', { ...body, reranker_model: 'no-such-reranker' }, TEST_SERVICE_TOKEN)
  assert.is(unknown.status, 404)
  assert.ok(isQueryError(unknown.body, 404), JSON.stringify(unknown.body))
  const chat = await post(gw, 'rerank', { ...body, reranker_model: 'sim-chat-instruct' }, TEST_SERVICE_TOKEN)
  assert.is(chat.status, 400, JSON.stringify(chat.body))
})

test('tokens: missing is 401; a developer token without project_id is 400', async () => {
  const none = await post(gw, 'rerank', body, undefined)
  assert.is(none.status, 401)
  assert.ok(isQueryError(none.body, 401))
  assert.is(none.body.error!.message, 'missing bearer token')
  const dev = await post(gw, 'rerank', body, TEST_DEV_TOKEN)
  assert.is(dev.status, 400)
  assert.is(dev.body.error!.message, 'project_id is required with a developer token')
})

test.run()
