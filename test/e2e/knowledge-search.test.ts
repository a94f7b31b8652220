/**
 * knowledge-search's request options end to end, over a real socket, with the real embedding
 * model, the simulator's reranker (`sim-rerank`) and chat model: output_fields shapes, the
 * rerank 400s, a rerank that reorders and is recorded as a `rerank` call, top_n, and
 * advanced_rag's one recorded `chat-internal` call that still finds the relevant chunk.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import type { UsageRecord } from '../../kernel/contract/records.js'

const test = suite('e2e knowledge search options')
const ADMIN = 'sk-admin-kb-search-e2e'
let gw: TestGateway

type Hit = Record<string, unknown> & { content: string }
type Body = { data: Hit[]; query_variants?: string[]; error?: { message: string } }

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Body }> {
  const res = await fetch(`${gw.url}/knowledge/v1/projects/alpha/collections${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as Body }
}
const search = (body: object) => call('POST', '/pets/search', body)

async function records(route: string): Promise<UsageRecord[]> {
  await gw.generation().records.flush()
  return ((await gw.generation().records.list({ from: 0, to: Date.now() + 1 }, 10000)) as UsageRecord[]).filter(
    (r) => r.route === route,
  )
}

test.before(async () => {
  gw = await startTestGateway({
    env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN },
    server: { stores: { records_flush_ms: 50 } as never },
  })
  assert.is((await call('POST', '', { name: 'pets' })).status, 201)
  const docs: [string, string, Record<string, unknown>][] = [
    ['cats.md', '# Cats\n\nCats sleep between twelve and sixteen hours each day.', { species: 'cat' }],
    ['dogs.md', '# Dogs\n\nDogs often sleep at night and nap in the afternoon.', { species: 'dog' }],
    ['market.md', '# Markets\n\nThe stock market closed higher on Friday.', {}],
    ['paris.md', '# Paris\n\nParis is the capital of France.', {}],
  ]
  for (const [name, text, metadata] of docs)
    assert.is(
      (await call('PUT', `/pets/documents/${name}`, { text, metadata, url: `https://example.org/${name}` })).status,
      200,
    )
})
test.after(() => gw.close())

test('output_fields shape each chunk; custom metadata keys; unknown names are a 400', async () => {
  const { status, body } = await search({
    query: 'how long do cats sleep',
    top_k: 1,
    output_fields: ['source_name', 'species', 'url'],
  })
  assert.is(status, 200, JSON.stringify(body))
  assert.equal(Object.keys(body.data[0]!).sort(), ['index', 'score', 'source_name', 'species', 'url'])
  assert.equal([body.data[0]!.source_name, body.data[0]!.species], ['cats.md', 'cat'])
  const bad = await search({ query: 'cats', output_fields: ['content', 'colour'] })
  assert.is(bad.status, 400)
  assert.match(bad.body.error!.message, /unknown output_fields: colour/)
})

test('rerank fields set together, else a 400 naming what is missing', async () => {
  const missing = await search({ query: 'cats', rerank: true, reranker_model: 'sim-rerank' })
  assert.is(missing.status, 400)
  assert.match(missing.body.error!.message, /reranker_provider missing/)
  const stray = await search({ query: 'cats', reranker_provider: 'cohere' })
  assert.is(stray.status, 400)
  assert.match(stray.body.error!.message, /reranker_provider given but rerank is not true/)
})

test('rerank with sim-rerank: the relevant chunk first, top_n kept, one rerank usage record', async () => {
  const before = (await records('rerank')).length
  const { status, body } = await search({
    query: 'How long do cats sleep each day?',
    top_k: 4,
    legs: 'lexical',
    rerank: true,
    reranker_model: 'sim-rerank',
    reranker_provider: 'cohere',
    top_n: 2,
  })
  assert.is(status, 200, JSON.stringify(body))
  assert.is(body.data.length, 2)
  assert.match(body.data[0]!.content, /Cats sleep/)
  assert.ok((body.data[0]!.rerank_score as number) > (body.data[1]!.rerank_score as number))
  const after = await records('rerank')
  assert.is(after.length, before + 1)
  const r = after.at(-1)!
  assert.equal([r.model, r.status], ['sim-rerank', 200])
  assert.ok(r.promptTokens > 0)
})

test('advanced_rag: one chat-internal call, recorded; the relevant chunk still found', async () => {
  const before = (await records('chat-internal')).length
  const { status, body } = await search({ query: 'how long do cats sleep', top_k: 1, advanced_rag: 'true' })
  assert.is(status, 200, JSON.stringify(body))
  assert.match(body.data[0]!.content, /Cats sleep/)
  assert.ok(Array.isArray(body.query_variants) && body.query_variants.length <= 3)
  assert.is((await records('chat-internal')).length, before + 1)
})

test.run()
