/**
 * POST /query/v1/search end to end, with the real embedding model and the simulator's
 * reranker: both token kinds, the project's default search_params under the request's, the
 * results and their sources in the envelope, usage_metric equal to the embeddings and rerank
 * calls recorded under the project's key, and the 400/401 answers in the query error shape.
 */
import { knowledgeStatus } from '../support/knowledge-admin.js'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { TEST_DEV_TOKEN, TEST_SERVICE_TOKEN, type TestGateway } from '../support/gateway.js'
import { ADMIN, demoRecords, isQueryError, post, startQueryGateway } from './query-bodies-gateway.js'

const test = suite('e2e Query service: search body type')
let gw: TestGateway

const knowledge = (method: string, path: string, body: object) => knowledgeStatus(gw.url, ADMIN, method, path, body)

test.before(async () => {
  gw = await startQueryGateway()
  assert.is(await knowledge('POST', '', { name: 'pets' }), 201)
  const docs: [string, string, string[]][] = [
    ['cats.md', '# Cats\n\nCats sleep between twelve and sixteen hours each day.', ['animals']],
    ['dogs.md', '# Dogs\n\nDogs often sleep at night and nap in the afternoon.', ['animals']],
    ['market.md', '# Markets\n\nThe stock market closed higher on Friday.', ['finance']],
  ]
  for (const [name, text, tags] of docs)
    assert.is(
      await knowledge('PUT', `/pets/documents/${name}`, { text, tags, url: `https://example.org/${name}` }),
      200,
    )
})
test.after(() => gw.close())

type Hit = Record<string, unknown>

test('developer token: results and sources in the envelope; usage_metric is the recorded embeddings call', async () => {
  const since = Date.now()
  const { status, body: out } = await post(
    gw,
    'search',
    { query: 'how long do cats sleep', project_id: 'demo', search_params: { collection: 'pets', top_k: 2 } },
    TEST_DEV_TOKEN,
  )
  assert.is(status, 200, JSON.stringify(out))
  assert.is(out.file, 'search')
  const hits = out.response!.response as Hit[]
  assert.is(hits.length, 2)
  assert.is(hits[0]!.source_name, 'cats.md')
  const meta = out.response!.metadata
  assert.is(out.query_id, meta.query_id)
  assert.ok(Array.isArray(meta.sources['cats.md']), 'sources by source name')
  assert.equal([meta.collection, meta.retrieval_type], ['pets', 'chunk'])
  // The project's default output_fields (config/projects.yaml) shape each result.
  assert.equal(Object.keys(hits[0]!).sort(), ['content', 'index', 'page_number', 'score', 'source_name'])
  const m = meta.usage_metric
  assert.is(
    Object.values(m.input_token_details).reduce((s, n) => s + n, 0),
    m.input_token_count,
    'the parts add up',
  )
  const records = (await demoRecords(gw, since)).filter((r) => r.route === 'embeddings')
  assert.is(records.length, 1, 'the query embedded once, under key demo')
  assert.equal([records[0]!.key, records[0]!.prompt_tokens], ['demo', m.input_token_count])
  assert.is(m.input_token_details.user_query, m.input_token_count)
  assert.ok(Math.abs(records[0]!.value - m.total_token_cost) < 1e-12)
})

test('service token: own search_params need override_params; then they apply over the defaults', async () => {
  const refused = await post(gw, 'search', { query: 'cats', search_params: { collection: 'pets' } }, TEST_SERVICE_TOKEN)
  assert.is(refused.status, 400)
  assert.ok(isQueryError(refused.body, 400))
  assert.match(refused.body.error!.message, /override_params.*search_params/)
  const ok = await post(
    gw,
    'search',
    {
      query: 'stock market',
      request_source: 'override_params',
      search_params: { collection: 'pets', top_k: 1, output_fields: ['source_name', 'url'], tags: ['finance'] },
    },
    TEST_SERVICE_TOKEN,
  )
  assert.is(ok.status, 200, JSON.stringify(ok.body))
  const hits = ok.body.response!.response as Hit[]
  assert.is(hits.length, 1)
  assert.equal([hits[0]!.source_name, hits[0]!.url], ['market.md', 'https://example.org/market.md'])
  assert.is(hits[0]!.content, undefined, 'only the requested output fields')
})

test("service token without search_params: the project's default collection", async () => {
  // The demo project's default collection is `sample`: searched when it exists, else named in the 404.
  const { status, body } = await post(gw, 'search', { query: 'cats' }, TEST_SERVICE_TOKEN)
  if (status === 200) assert.is(body.response!.metadata.collection, 'sample')
  else {
    assert.is(status, 404, JSON.stringify(body))
    assert.ok(isQueryError(body, 404))
    assert.match(body.error!.message, /sample/)
  }
})

test('rerank with top_n: the reranker reorders, recorded under the key, its documents counted as knowledge_base', async () => {
  const since = Date.now()
  const params = {
    collection: 'pets',
    top_k: 3,
    rerank: true,
    reranker_model: 'sim-rerank',
    reranker_provider: 'cohere',
    top_n: 1,
  }
  const { status, body: out } = await post(
    gw,
    'search',
    { query: 'how long do cats sleep', project_id: 'demo', search_params: params },
    TEST_DEV_TOKEN,
  )
  assert.is(status, 200, JSON.stringify(out))
  const hits = out.response!.response as Hit[]
  assert.is(hits.length, 1)
  assert.type(hits[0]!.rerank_score, 'number')
  assert.is(out.response!.metadata.reranker_model, 'sim-rerank')
  const m = out.response!.metadata.usage_metric
  assert.ok(m.input_token_details.knowledge_base > 0)
  const records = (await demoRecords(gw, since)).filter((r) => r.route === 'rerank' || r.route === 'embeddings')
  assert.equal(records.map((r) => r.route).sort(), ['embeddings', 'rerank'])
  assert.ok(records.every((r) => r.key === 'demo'))
  assert.is(
    m.input_token_count,
    records.reduce((s, r) => s + r.prompt_tokens, 0),
  )
})

test('bad bodies and rules: 400 naming the field', async () => {
  const dev = await post(
    gw,
    'search',
    { query: 'cats', project_id: 'demo', search_params: { top_k: 2 } },
    TEST_DEV_TOKEN,
  )
  assert.is(dev.status, 400)
  assert.is(dev.body.error!.message, 'search_params.collection is required with a developer token')
  const topK = await post(
    gw,
    'search',
    { query: 'cats', project_id: 'demo', search_params: { collection: 'pets', top_k: 0 } },
    TEST_DEV_TOKEN,
  )
  assert.is(topK.status, 400)
  assert.match(topK.body.error!.message, /search_params\/top_k/)
  const prompt = await post(
    gw,
    'search',
    { query: 'cats', project_id: 'demo', search_params: { collection: 'pets', prompt_mode: 'custom' } },
    TEST_DEV_TOKEN,
  )
  assert.is(prompt.status, 400, 'a search makes no prompt')
  const noQuery = await post(
    gw,
    'search',
    { project_id: 'demo', search_params: { collection: 'pets' } },
    TEST_DEV_TOKEN,
  )
  assert.is(noQuery.status, 400)
  assert.match(noQuery.body.error!.message, /query/)
  const trio = await post(
    gw,
    'search',
    {
      query: 'cats',
      project_id: 'demo',
      search_params: { collection: 'pets', rerank: true, reranker_model: 'sim-rerank' },
    },
    TEST_DEV_TOKEN,
  )
  assert.is(trio.status, 400)
  assert.match(trio.body.error!.message, /reranker_provider missing/)
  const expr = await post(
    gw,
    'search',
    { query: 'cats', project_id: 'demo', search_params: { collection: 'pets', expr: 'page_number >' } },
    TEST_DEV_TOKEN,
  )
  assert.is(expr.status, 400)
  assert.ok(isQueryError(expr.body, 400))
})

test('search_params legs and fusion: chosen per request; bad values are 400 in the query error shape', async () => {
  const search = (extra: object) =>
    post(
      gw,
      'search',
      { query: 'how long do cats sleep', project_id: 'demo', search_params: { collection: 'pets', ...extra } },
      TEST_DEV_TOKEN,
    )
  for (const extra of [
    { legs: 'lexical' },
    { legs: 'hybrid', fusion: { method: 'rrf', k: 10, weights: { lexical: 1, vector: 1 }, adaptive: false } },
    { fusion: { method: 'convex', weights: { vector: 0.5 } } },
  ]) {
    const ok = await search(extra)
    assert.is(ok.status, 200, JSON.stringify(ok.body))
    assert.is((ok.body.response!.response as Hit[])[0]!.source_name, 'cats.md', JSON.stringify(extra))
  }
  for (const [extra, field] of [
    [{ legs: 'both' }, /search_params\/legs/],
    [{ fusion: { method: 'sum' } }, /search_params\/fusion\/method/],
    [{ fusion: { weights: { lexical: 101 } } }, /search_params\/fusion\/weights\/lexical/],
    [{ fusion: { k: 1.5 } }, /search_params\/fusion\/k/],
    [{ fusion: { weights: { lexical: 0, vector: 0 } } }, /cannot both be 0/],
  ] as const) {
    const bad = await search(extra)
    assert.is(bad.status, 400, JSON.stringify(extra))
    assert.ok(isQueryError(bad.body, 400), JSON.stringify(bad.body))
    assert.match(bad.body.error!.message, field)
  }
})

test('tokens: missing is 401; a developer token without project_id is 400', async () => {
  const none = await post(gw, 'search', { query: 'cats' }, undefined)
  assert.is(none.status, 401)
  assert.ok(isQueryError(none.body, 401))
  const dev = await post(gw, 'search', { query: 'cats', search_params: { collection: 'pets' } }, TEST_DEV_TOKEN)
  assert.is(dev.status, 400)
  assert.is(dev.body.error!.message, 'project_id is required with a developer token')
})

test.run()
