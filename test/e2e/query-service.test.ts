/**
 * The Query service's REST query end to end, over a real socket, with the simulator's chat
 * model and the real embedding model: both token kinds, every validation rule with its status
 * and message, project defaults and overrides, providers, prompt modes and restricted mode's
 * "not in the documents", tools and structured output, and usage_metric against the prices
 * and the usage records of the project's key.
 */
import { knowledgeAdmin } from '../support/knowledge-admin.js'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestGateway, TEST_DEV_TOKEN, TEST_KEY, TEST_SERVICE_TOKEN, type TestGateway } from '../support/gateway.js'
import { hashSecret } from '../../protocols/credentials/secrets.js'
import type { UsageRecord } from '../../kernel/contract/records.js'
import { INPUT_PARTS, type UsageMetric } from '../../protocols/query/usage-metric.js'

const test = suite('e2e query service (REST)')
const ADMIN = 'sk-admin-query-e2e'
const BARE_TOKEN = 'qt-bare-service-token'
let gw: TestGateway

// The demo project as shipped, plus `bare`: no defaults at all, its calls under key `bare-key`.
const PROJECTS = `
projects:
  demo:
    key: demo
    defaults:
      model_provider: gateway
      model_name: sim-chat-instruct
      model_params: { temperature: 0.2, system_prompt: "You are a helpful assistant." }
      search_params: { collection: handbook, retrieval_type: chunk, top_k: 3, prompt_mode: restricted }
      enhance_prompt: { timezone: UTC, verbosity: normal }
    tokens:
      - { id: demo-developer, kind: developer, demo: true }
      - { id: demo-service, kind: service, demo: true }
  bare:
    key: bare-key
    tokens:
      - { id: bare-service, kind: service, hash: "sha256:${hashSecret(BARE_TOKEN).toString('hex')}" }
`
const KEYS = `
groups:
  demo: { models: ["*"], weight: 1 }
keys:
  - { id: demo, group: demo, demo: true }
  - { id: bare-key, group: demo, hash: "sha256:${hashSecret('sk-bare-unused').toString('hex')}" }
`
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
      - query: { providers: { gateway: {}, sim-direct: { backend: sim } } }
`

type Json = Record<string, any>

async function query(body: object, token: string | null = TEST_SERVICE_TOKEN): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${gw.url}/query/v1/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as Json }
}
const q = (extra: object = {}) => ({ endpoint: 'query', query: 'What does the handbook say about keys?', ...extra })
const own = (extra: object) => q({ request_source: 'override_params', ...extra })

async function expectError(p: Promise<{ status: number; body: Json }>, status: number, message: RegExp): Promise<void> {
  const { status: got, body } = await p
  assert.is(got, status, JSON.stringify(body))
  assert.is(body.error?.status, status)
  assert.type(body.error?.type, 'string')
  assert.match(body.error.message, message)
}

test.before(async () => {
  gw = await startTestGateway({
    files: { 'config/projects.yaml': PROJECTS, 'config/keys.yaml': KEYS, 'pipelines/query.yaml': PIPELINE },
    env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN },
    server: { stores: { records_flush_ms: 50 } as never },
  })
  const kb = knowledgeAdmin(gw.url, ADMIN)
  assert.is((await kb('POST', '', { name: 'handbook' })).status, 201)
  const docs: [string, string, string[]][] = [
    [
      'keys.md',
      '# API keys\n\nTo create an API key, an operator calls POST /admin/keys with the admin key. The secret is shown once and kept only hashed.',
      ['admin'],
    ],
    [
      'budgets.md',
      '# Budgets\n\nEach key may have a monthly budget in indicative value; past it, requests get 403.',
      ['admin'],
    ],
    ['voices.md', '# Speech\n\nThe speech route streams audio as it is made, in pcm, wav or mp3.', ['audio']],
  ]
  for (const [name, text, tags] of docs)
    assert.is((await kb('PUT', `/handbook/documents/${name}`, { text, tags })).status, 200)
})
test.after(() => gw.close())

test('a service token answers with the project defaults and the spec envelope', async () => {
  const { status, body } = await query(q())
  assert.is(status, 200, JSON.stringify(body))
  assert.type(body.response.response, 'string')
  assert.ok(body.response.response.length > 0)
  assert.match(body.query_id, /^q-/)
  assert.is(body.response.metadata.query_id, body.query_id)
  assert.is(body.file, 'query')
  assert.equal(body.response.metadata.sources, {})
  assert.is(body.response.metadata.model, 'sim-chat-instruct', 'the project default model')
})

test('a request value overrides the project default', async () => {
  const { status, body } = await query(own({ model_name: 'sim-chat-thinking' }))
  assert.is(status, 200, JSON.stringify(body))
  assert.is(body.response.metadata.model, 'sim-chat-thinking')
})

test("token kinds: developer needs project_id; project_id must be the token's own; missing and unknown tokens are 401", async () => {
  await expectError(query(q(), TEST_DEV_TOKEN), 400, /project_id is required with a developer token/)
  const dev = await query(q({ project_id: 'demo' }), TEST_DEV_TOKEN)
  assert.is(dev.status, 200, JSON.stringify(dev.body))
  await expectError(query(q({ project_id: 'bare' }), TEST_DEV_TOKEN), 403, /not valid for project bare/)
  await expectError(query(q({ project_id: 'no-such' }), TEST_SERVICE_TOKEN), 403, /not valid for project no-such/)
  const service = await query(q({ project_id: 'demo' }), TEST_SERVICE_TOKEN)
  assert.is(service.status, 200, 'project_id at the root with a service token')
  await expectError(query(q(), null), 401, /missing bearer token/)
  await expectError(query(q(), 'qt-nobody'), 401, /invalid access token/)
})

test('a service token sends own parameters only with request_source override_params', async () => {
  await expectError(
    query(q({ model_name: 'sim-chat-thinking', enable_search: false })),
    400,
    /request_source "override_params" \(sent: model_name, enable_search\)/,
  )
  await expectError(query(q({ request_source: 'mine' })), 400, /request_source must be "override_params"/)
  // A developer token sends its own parameters without it.
  const dev = await query(q({ project_id: 'demo', model_name: 'sim-chat-thinking' }), TEST_DEV_TOKEN)
  assert.is(dev.status, 200, JSON.stringify(dev.body))
})

test('validation: endpoint, temperature, top_p, thinking_level, response_format, unknown fields', async () => {
  await expectError(query({ endpoint: 'chat', query: 'x' }), 400, /endpoint/)
  await expectError(
    query({ endpoint: 'realtime', query: 'x' }),
    400,
    /endpoint must be query \(realtime is served over the WebSocket\)/,
  )
  await expectError(query({ query: 'x' }), 400, /endpoint/)
  await expectError(query({ endpoint: 'query' }), 400, /query/)
  await expectError(query(own({ model_params: { temperature: 2.5 } })), 400, /model_params\/temperature must be <= 2/)
  await expectError(query(own({ model_params: { temperature: -0.1 } })), 400, /model_params\/temperature must be >= 0/)
  await expectError(query(own({ model_params: { top_p: 1.5 } })), 400, /model_params\/top_p must be <= 1/)
  await expectError(query(own({ model_params: { thinking_level: 'EXTREME' } })), 400, /thinking_level/)
  await expectError(query(own({ response_format: { type: 'xml' } })), 400, /response_format\/type/)
  await expectError(query(own({ response_format: {} })), 400, /type/)
  await expectError(
    query(own({ search_params: { fusion: { method: 'mean' } } })),
    400,
    /search_params\/fusion\/method must be equal to one of the allowed values/,
  )
  await expectError(query(own({ search_params: { legs: 'all' } })), 400, /search_params\/legs/)
  await expectError(query(q({ enable_serach: true })), 400, /must NOT have additional properties 'enable_serach'/)
  for (const level of ['LOW', 'MEDIUM', 'HIGH']) {
    const { status } = await query(own({ model_name: 'sim-chat-thinking', model_params: { thinking_level: level } }))
    assert.is(status, 200, level)
  }
  for (const type of ['text', 'json', 'openai'])
    assert.is((await query(own({ response_format: { type } }))).status, 200, type)
})

test('search rules: search_params required, collection with a developer token, the rerank trio, custom prompts', async () => {
  await expectError(query(q({ enable_search: true }), BARE_TOKEN), 400, /request_source/)
  await expectError(
    query(own({ enable_search: true }), BARE_TOKEN),
    400,
    /search_params is required when enable_search is true/,
  )
  await expectError(
    query(own({ enable_search: true, search_params: { top_k: 2 } }), BARE_TOKEN),
    400,
    /search_params.collection is required/,
  )
  await expectError(
    query(q({ project_id: 'demo', enable_search: true, search_params: { top_k: 2 } }), TEST_DEV_TOKEN),
    400,
    /search_params.collection is required with a developer token/,
  )
  await expectError(
    query(own({ enable_search: true, search_params: { rerank: true, reranker_model: 'sim-rerank' } })),
    400,
    /reranker_provider missing/,
  )
  await expectError(query(own({ search_params: { reranker_model: 'sim-rerank' } })), 400, /must be set together/)
  await expectError(
    query(own({ enable_search: true, search_params: { prompt_mode: 'custom' } })),
    400,
    /search_prompt is required when prompt_mode is custom/,
  )
  await expectError(
    query(own({ enable_search: true, search_params: { prompt_mode: 'custom', search_prompt: 'Context: {data}' } })),
    400,
    /must contain \{data\} and \{query\}.*missing \{query\}/,
  )
  await expectError(query(own({ enable_search: true, search_params: { collection: 'nope' } })), 404, /collection/)
  await expectError(
    query(own({ enable_search: true, search_params: { expr: 'tags ~ "x"' } })),
    400,
    /filter expression, at character 6/,
  )
})

test('search: sources carry the requested output fields; a custom template holds the context', async () => {
  const { status, body } = await query(
    q({
      project_id: 'demo',
      enable_search: true,
      search_params: { collection: 'handbook', output_fields: ['source_name', 'content'] },
    }),
    TEST_DEV_TOKEN,
  )
  assert.is(status, 200, JSON.stringify(body))
  const sources = body.response.metadata.sources as Record<string, Json[]>
  assert.ok(sources['keys.md'], JSON.stringify(sources))
  for (const items of Object.values(sources))
    for (const item of items) assert.equal(Object.keys(item).sort(), ['content', 'index', 'score', 'source_name'])
  assert.ok(body.response.metadata.usage_metric.input_token_details.knowledge_base > 0)
  const filtered = await query(
    q({
      project_id: 'demo',
      enable_search: true,
      search_params: { collection: 'handbook', tags: ['audio'], prompt_mode: 'unrestricted' },
    }),
    TEST_DEV_TOKEN,
  )
  assert.equal(Object.keys(filtered.body.response.metadata.sources), ['voices.md'], 'the filter applies')
  const custom = await query(
    own({
      enable_search: true,
      search_params: { prompt_mode: 'custom', search_prompt: 'Documents:\n{data}\n\nUsing only them, answer: {query}' },
    }),
  )
  assert.is(custom.status, 200, JSON.stringify(custom.body))
  assert.ok(custom.body.response.metadata.usage_metric.input_token_details.knowledge_base > 0)
})

test('restricted mode: a question the collection cannot answer says so, and costs no model tokens', async () => {
  const asked = await query(own({ query: 'What is the boiling point of mercury?', enable_search: true }))
  assert.is(asked.status, 200, JSON.stringify(asked.body))
  assert.match(asked.body.response.response, /could not find the answer .* documents/)
  assert.is(asked.body.response.metadata.usage_metric.total_token_count, 0)
  assert.is(asked.body.response.metadata.answered_from_context, false)
  assert.equal(asked.body.response.metadata.sources, {})
})

test('usage_metric: parts add up, costs are the model prices, and the tokens are in the records of the project key', async () => {
  const { body } = await query(
    own({
      enable_search: true,
      enhance_prompt: { date: true, time: true, timezone: 'Europe/Paris', verbosity: 'detailed' },
    }),
  )
  const m = body.response.metadata.usage_metric as UsageMetric
  const sum = (o: Record<string, number>) => INPUT_PARTS.reduce((s, p) => s + o[p]!, 0)
  assert.is(sum(m.input_token_details), m.input_token_count)
  assert.is(m.total_token_count, m.input_token_count + m.output_token_count)
  assert.is(m.output_token_details.output_response, m.output_token_count)
  for (const p of ['user_query', 'system_prompt', 'knowledge_base'] as const) assert.ok(m.input_token_details[p] > 0, p)
  // sim-chat-instruct: prompt 0.10, completion 0.30 per million tokens (config/models.yaml).
  const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-11, `${a} vs ${b}`)
  close(m.input_token_cost, (m.input_token_count * 0.1) / 1e6)
  close(m.output_token_cost, (m.output_token_count * 0.3) / 1e6)
  close(m.total_token_cost, m.input_token_cost + m.output_token_cost)
  close(sum(m.input_token_cost_details), m.input_token_cost)
  await gw.generation().records.flush()
  const records = (
    (await gw.generation().records.list({ from: 0, to: Date.now() + 1, keyId: 'demo' }, 1000)) as UsageRecord[]
  ).filter((r) => r.route === 'query-chat')
  const match = records.find(
    (r) => r.promptTokens === m.input_token_count && r.completionTokens === m.output_token_count,
  )
  assert.ok(match, `a query-chat record of key demo with ${m.input_token_count}/${m.output_token_count} tokens`)
  close(match!.value, m.total_token_cost)
  // The embedding of the query is recorded under the project key too.
  assert.ok(
    ((await gw.generation().records.list({ from: 0, to: Date.now() + 1, keyId: 'demo' }, 1000)) as UsageRecord[]).some(
      (r) => r.route === 'embeddings',
    ),
  )
})

test('enhancement: an unknown time zone is a 400; date and time lengthen the system prompt', async () => {
  await expectError(
    query(own({ enhance_prompt: { timezone: 'Mars/Olympus_Mons' } })),
    400,
    /timezone Mars\/Olympus_Mons is not an IANA time zone/,
  )
  const plain = await query(own({ query: 'hello', enhance_prompt: { date: false, time: false } }))
  const dated = await query(own({ query: 'hello', enhance_prompt: { date: true, time: true, timezone: 'Asia/Tokyo' } }))
  assert.ok(
    dated.body.response.metadata.usage_metric.input_token_details.system_prompt >
      plain.body.response.metadata.usage_metric.input_token_details.system_prompt,
  )
})

test('providers: gateway and a backend by served name; an unknown provider or model is a 400', async () => {
  const served = await query(own({ model_provider: 'sim-direct', model_name: 'sim-instruct-8b' }))
  assert.is(served.status, 200, JSON.stringify(served.body))
  assert.is(served.body.response.metadata.model, 'sim-chat-instruct')
  await expectError(
    query(own({ model_provider: 'openai' })),
    400,
    /unknown model_provider openai \(providers: gateway, sim-direct\)/,
  )
  await expectError(
    query(own({ model_provider: 'sim-direct', model_name: 'use-lite' })),
    400,
    /model use-lite is not served by provider sim-direct/,
  )
  await expectError(query(own({ model_name: 'no-such-model' })), 404, /model/)
})

test('tools: the reply carries the function call and its arguments', async () => {
  const tools = [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'The weather of a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    },
  ]
  const { status, body } = await query(own({ query: 'Use get_weather for Paris', model_params: { tools } }))
  assert.is(status, 200, JSON.stringify(body))
  const calls = body.response.metadata.tool_calls as Json[]
  assert.is(calls.length, 1)
  assert.is(calls[0]!.function.name, 'get_weather')
  assert.type(JSON.parse(calls[0]!.function.arguments).city, 'string')
  assert.is(body.response.metadata.finish_reason, 'tool_calls')
})

test('structured output: the reply satisfies the JSON schema; a bad schema is a 400', async () => {
  const schema = {
    type: 'object',
    properties: { name: { type: 'string' }, age: { type: 'integer' } },
    required: ['name', 'age'],
    additionalProperties: false,
  }
  const { status, body } = await query(
    own({
      model_params: { response_format: { type: 'json_schema', json_schema: { name: 'person', strict: true, schema } } },
    }),
  )
  assert.is(status, 200, JSON.stringify(body))
  assert.type(body.response.response.name, 'string')
  assert.ok(Number.isInteger(body.response.response.age))
  await expectError(
    query(
      own({
        model_params: {
          response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'nonsense' } } },
        },
      }),
    ),
    400,
    /not a valid JSON Schema/,
  )
  const json = await query(own({ response_format: { type: 'json' } }))
  assert.type(json.body.response.response, 'object')
  const openai = await query(own({ response_format: { type: 'openai' } }))
  assert.is(openai.body.response.response.object, 'chat.completion')
})

test('a caller-supplied history is in the prompt and counted as conversation_history', async () => {
  const history = [
    { role: 'user', content: 'My name is Ada and I work on compilers.' },
    { role: 'assistant', content: 'Nice to meet you, Ada.' },
  ]
  const { status, body } = await query(q({ history }))
  assert.is(status, 200, JSON.stringify(body))
  assert.ok(body.response.metadata.usage_metric.input_token_details.conversation_history > 0)
  await expectError(query(q({ history: [{ role: 'system', content: 'x' }] })), 400, /role/)
})

test.run()
