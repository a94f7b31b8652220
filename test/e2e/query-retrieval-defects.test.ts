/**
 * The smaller retrieval defects of issue 28, each as a user meets it on the real gateway:
 * documents named `constructor` and `__proto__` retrieved by queries; a chat upload's
 * session_id held to the query's rule; `query_compare` with `request_source`; 404 and 405
 * under /query/v1 in the Query service's error shape; a misspelt field in `expr`; document
 * and neighbor sources carrying the requested output_fields at the top.
 */
import { knowledgeStatus } from '../support/knowledge-admin.js'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { TEST_DEV_TOKEN, TEST_SERVICE_TOKEN, type TestGateway } from '../support/gateway.js'
import { QueryWsClient } from '../support/query-ws-client.js'
import { ADMIN, isQueryError, post, type QueryReply, startQueryGateway } from './query-bodies-gateway.js'

const test = suite('e2e Query service: retrieval defects of issue 28')
let gw: TestGateway

const knowledge = (method: string, path: string, body: object) => knowledgeStatus(gw.url, ADMIN, method, path, body)

test.before(async () => {
  gw = await startQueryGateway()
  assert.is(await knowledge('POST', '', { name: 'odd' }), 201)
  const docs: [string, string][] = [
    ['constructor', 'Lighthouses guide ships with a rotating beam of light.'],
    ['__proto__', 'A lighthouse keeper once trimmed the lamp wick every night.'],
    ['toString', 'Harbour pilots board ships outside the lighthouse.'],
  ]
  for (const [name, text] of docs)
    assert.is(
      await knowledge('PUT', `/odd/documents/${encodeURIComponent(name)}`, { text, metadata: { year: 1900 } }),
      200,
      name,
    )
})
test.after(() => gw.close())

const search = (search_params: object) =>
  post(
    gw,
    'search',
    { query: 'lighthouse keeper lamp', project_id: 'demo', search_params: { collection: 'odd', ...search_params } },
    TEST_DEV_TOKEN,
  )

test('documents named constructor, __proto__ and toString are ordinary sources of a search and of a query', async () => {
  const { status, body } = await search({ top_k: 3 })
  assert.is(status, 200, JSON.stringify(body))
  const sources = body.response!.metadata.sources as Record<string, unknown[]>
  assert.equal(Object.keys(sources).sort(), ['__proto__', 'constructor', 'toString'])
  for (const name of ['__proto__', 'constructor', 'toString']) assert.ok(Array.isArray(sources[name]), name)
  const query = await fetch(`${gw.url}/query/v1/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_DEV_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      endpoint: 'query',
      query: 'Who trimmed the lamp wick?',
      project_id: 'demo',
      enable_search: true,
      search_params: { collection: 'odd', top_k: 3 },
    }),
  })
  const text = await query.text()
  assert.is(query.status, 200, text)
  assert.match(text, /"__proto__"/)
  assert.match(text, /"constructor"/)
})

test('a misspelt field in expr is a 400 naming it and the known fields', async () => {
  const { status, body } = await search({ expr: 'yeer == 1900' })
  assert.is(status, 400, JSON.stringify(body))
  assert.ok(isQueryError(body, 400), JSON.stringify(body))
  const message = body.error!.message as string
  assert.match(message, /"yeer"/)
  assert.match(message, /source_name/)
  assert.match(message, /year/)
  const ok = await search({ expr: 'year == 1900' })
  assert.is(ok.status, 200, JSON.stringify(ok.body))
  assert.ok((ok.body.response!.response as unknown[]).length > 0)
})

test('document and neighbor sources carry the requested output_fields at the top, as chunks do', async () => {
  for (const retrieval_type of ['chunk', 'document', 'neighbor']) {
    const { status, body } = await search({
      top_k: 2,
      retrieval_type,
      output_fields: ['source_name', 'content', 'year'],
    })
    assert.is(status, 200, JSON.stringify(body))
    const hits = body.response!.response as Record<string, unknown>[]
    assert.ok(hits.length > 0, retrieval_type)
    for (const h of hits) {
      assert.type(h.content, 'string', `${retrieval_type}: content at the top`)
      assert.is(h.year, 1900, `${retrieval_type}: a metadata field at the top`)
      assert.type(h.source_name, 'string')
    }
  }
})

test('unknown paths and wrong methods under /query/v1 answer in the Query service error shape', async () => {
  const missing = await fetch(`${gw.url}/query/v1/no-such-route`, { method: 'POST' })
  const missingBody = (await missing.json()) as QueryReply
  assert.is(missing.status, 404)
  assert.ok(isQueryError(missingBody, 404), JSON.stringify(missingBody))
  const wrong = await fetch(`${gw.url}/query/v1/search`, { method: 'GET' })
  const wrongBody = (await wrong.json()) as QueryReply
  assert.is(wrong.status, 405)
  assert.ok(isQueryError(wrongBody, 405), JSON.stringify(wrongBody))
  // The gateway's own paths keep the OpenAI shape.
  const gateway = (await (await fetch(`${gw.url}/v1/no-such-route`, { method: 'POST' })).json()) as {
    error: { type: string; status?: number }
  }
  assert.type(gateway.error.type, 'string')
  assert.is(gateway.error.status, undefined)
})

test("a chat upload's session_id longer than a query takes is refused at upload", async () => {
  const form = (sessionId: string) => {
    const f = new FormData()
    f.append('project_id', 'demo')
    f.append('session_id', sessionId)
    f.append('docs', new Blob(['notes'], { type: 'text/plain' }), 'notes.txt')
    return f
  }
  const send = (sessionId: string) =>
    fetch(`${gw.url}/query/v1/chat_upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_DEV_TOKEN}` },
      body: form(sessionId),
    })
  const long = await send('s'.repeat(129))
  const body = (await long.json()) as QueryReply
  assert.is(long.status, 400, JSON.stringify(body))
  assert.match(body.error!.message as string, /session_id must be 1 to 128 characters/)
  const fits = await send('s'.repeat(128))
  assert.is(fits.status, 200, await fits.text())
})

test('query_compare accepts request_source "override_params" and refuses any other value', async () => {
  const client = await QueryWsClient.open(gw.url, TEST_SERVICE_TOKEN)
  const compare = (id: string, request_source: string) => ({
    id,
    action: 'query_compare',
    query: 'Which model answers best?',
    model_provider: 'gateway',
    model_name: 'sim-chat-instruct',
    request_source,
  })
  client.send(compare('c-ok', 'override_params'))
  const ok = await client.finished('c-ok')
  assert.is(ok.at(-1)!.type, 'compare.done', JSON.stringify(ok.at(-1)))
  client.send(compare('c-bad', 'somewhere'))
  const bad = await client.finished('c-bad')
  assert.is(bad.at(-1)!.type, 'error', JSON.stringify(bad.at(-1)))
  assert.match(JSON.stringify(bad.at(-1)), /request_source must be/)
  client.ws.close()
})

test('query_compare takes the legs and fusion of /query, checked by its schema', async () => {
  const client = await QueryWsClient.open(gw.url, TEST_SERVICE_TOKEN)
  const compare = (id: string, search_params: Record<string, unknown>) => ({
    id,
    action: 'query_compare',
    query: 'Which model answers best?',
    model_provider: 'gateway',
    model_name: 'sim-chat-instruct',
    request_source: 'override_params',
    enable_search: true,
    search_params,
  })
  client.send(compare('c-legs', { collection: 'odd', legs: 'lexical', fusion: { method: 'convex' } }))
  const ok = await client.finished('c-legs')
  assert.is(ok.at(-1)!.type, 'compare.done', JSON.stringify(ok.at(-1)))
  client.send(compare('c-bad-legs', { collection: 'odd', legs: 'all' }))
  const bad = await client.finished('c-bad-legs')
  assert.is(bad.at(-1)!.type, 'error', JSON.stringify(bad.at(-1)))
  assert.match(JSON.stringify(bad.at(-1)), /search_params\/legs/)
  client.ws.close()
})

test.run()
