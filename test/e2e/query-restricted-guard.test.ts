/**
 * Restricted mode's relevance guard end to end (plugins/query/relevance.ts), over a real socket
 * with the real embedding model and the simulator's chat model: a question the collection
 * cannot answer, though it shares a word with it, gets `no_answer_text` with no call to the
 * answer model (no `query-chat` record, no tokens), and so does one naming something the
 * collection never mentions; an answerable one reaches the model; and a collection's own
 * settings (`restricted_guard.collections`) override the route's.
 */
import { knowledgeAdmin } from '../support/knowledge-admin.js'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestGateway, TEST_KEY, TEST_SERVICE_TOKEN, type TestGateway } from '../support/gateway.js'
import type { UsageRecord } from '../../kernel/contract/records.js'

const test = suite('e2e query: restricted guard')
const ADMIN = 'sk-admin-guard-e2e'
let gw: TestGateway

const PROJECTS = `
projects:
  demo:
    key: demo
    defaults:
      model_provider: gateway
      model_name: sim-chat-instruct
      search_params: { collection: handbook, retrieval_type: chunk, top_k: 3, prompt_mode: restricted }
    tokens:
      - { id: demo-service, kind: service, demo: true }
`
const KEYS = `
groups:
  demo: { models: ["*"], weight: 1 }
keys:
  - { id: demo, group: demo, demo: true }
`
// Two routes over the same collection: the shipped guard, and one where the handbook has its own, lower threshold.
const PIPELINE = `
pipeline: query
prefix: /query/v1
errors: query
routes:
  - id: query
    http: POST /query
    body: query-request
    steps:
      - query-auth
      - query: { no_answer_text: "That is not in the documents." }
  - id: query-lenient
    http: POST /query-lenient
    body: query-request
    steps:
      - query-auth
      - query:
          no_answer_text: "That is not in the documents."
          restricted_guard: { min_coverage: 0.9, collections: { handbook: { min_coverage: 0.1, names: false } } }
`

type Json = Record<string, any>

async function ask(query: string, path = 'query'): Promise<Json> {
  const res = await fetch(`${gw.url}/query/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_SERVICE_TOKEN}` },
    body: JSON.stringify({ endpoint: 'query', query, enable_search: true, request_source: 'override_params' }),
  })
  const body = (await res.json()) as Json
  assert.is(res.status, 200, JSON.stringify(body))
  return body
}

/** The answer model's calls so far: the `query-chat` records of the project's key. */
async function answerCalls(): Promise<number> {
  await gw.generation().records.flush()
  const records = (await gw
    .generation()
    .records.list({ from: 0, to: Date.now() + 1, keyId: 'demo' }, 1000)) as UsageRecord[]
  return records.filter((r) => r.route === 'query-chat').length
}

test.before(async () => {
  gw = await startTestGateway({
    files: { 'config/projects.yaml': PROJECTS, 'config/keys.yaml': KEYS, 'pipelines/query.yaml': PIPELINE },
    env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN },
    server: { stores: { records_flush_ms: 50 } as never },
  })
  const kb = knowledgeAdmin(gw.url, ADMIN)
  assert.is((await kb('POST', '', { name: 'handbook' })).status, 201)
  const docs: [string, string][] = [
    [
      'keys.md',
      '# API keys\n\nTo create an API key, an operator calls POST /admin/keys with the admin key. The secret is shown once and kept only hashed.',
    ],
    ['budgets.md', '# Budgets\n\nEach key may have a monthly budget in indicative value; past it, requests get 403.'],
  ]
  for (const [name, text] of docs) assert.is((await kb('PUT', `/handbook/documents/${name}`, { text })).status, 200)
})
test.after(() => gw.close())

// Shares "key" with the handbook (the former guard let it through), but little else: 1 of 4 content words.
const UNANSWERABLE = 'How do I rotate the certificate of the key server?'
// Every content word but one is in the handbook; that one is a name the collection never contains.
const UNKNOWN_NAME = 'How do I create an API key with Terraform?'

test('a question the collection cannot answer is refused without a call to the answer model', async () => {
  const before = await answerCalls()
  const body = await ask(UNANSWERABLE)
  assert.is(body.response.response, 'That is not in the documents.')
  assert.is(body.response.metadata.usage_metric.total_token_count, 0)
  assert.is(body.response.metadata.answered_from_context, false)
  assert.equal(body.response.metadata.sources, {})
  assert.is(await answerCalls(), before, 'no query-chat call')
})

test('a question naming what the collection never mentions is refused, however many words it shares', async () => {
  const before = await answerCalls()
  const body = await ask(UNKNOWN_NAME)
  assert.is(body.response.response, 'That is not in the documents.')
  assert.is(await answerCalls(), before, 'no query-chat call')
})

test('an answerable question reaches the model', async () => {
  const before = await answerCalls()
  const body = await ask('How does an operator create an API key?')
  assert.is.not(body.response.response, 'That is not in the documents.')
  assert.ok(body.response.metadata.usage_metric.total_token_count > 0)
  assert.ok(body.response.metadata.sources['keys.md'], JSON.stringify(body.response.metadata.sources))
  assert.is(await answerCalls(), before + 1)
})

test("a collection's own threshold overrides the route's", async () => {
  const before = await answerCalls()
  const body = await ask(UNANSWERABLE, 'query-lenient')
  assert.is.not(body.response.response, 'That is not in the documents.', 'handbook: 0.1, not the route’s 0.9')
  const named = await ask(UNKNOWN_NAME, 'query-lenient')
  assert.is.not(named.response.response, 'That is not in the documents.', 'handbook: names off')
  assert.is(await answerCalls(), before + 2)
})

test.run()
