/**
 * Authentication before body validation, on every route that takes a JSON body: a request with
 * no key (or a wrong one) meets 401 whatever its body, malformed JSON and a body that breaks
 * the route's schema included; with the key, the same body meets the route's 400.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'

const test = suite('e2e authentication before body validation: 401 beats 400')
let gw: TestGateway
const ADMIN = 'sk-admin-auth-before-body'

test.before(async () => {
  gw = await startTestGateway({ env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN } })
})
test.after(async () => {
  await gw?.close()
})

/** Routes whose body schema the kernel checks, with a key the route takes. */
const ROUTES = [
  '/v1/chat/completions',
  '/v1/completions',
  '/v1/embeddings',
  '/v1/rerank',
  '/v1/verdicts',
  '/v1/images/generations',
  '/v1/web_search',
  '/v1/audio/speech',
  '/v1/messages',
  '/v1/responses',
]
/** Routes of the admin key (admin-auth): the admin API and the knowledge base. */
const ADMIN_ROUTES: [string, string][] = [
  ['POST', '/admin/keys'],
  ['PATCH', '/admin/keys/demo'],
  ['PUT', '/admin/groups/g1'],
  ['PUT', '/admin/projects/p1'],
  ['POST', '/knowledge/v1/projects/demo/collections'],
  ['POST', '/knowledge/v1/projects/demo/collections/sample/search'],
]
/** The Query service's routes authenticate with a project token (query-auth). */
const QUERY_ROUTES = ['/query/v1/query', '/query/v1/search', '/query/v1/rerank']
const BAD_BODIES = ['{"model": 42, "nonsense": true}', '{not json', '[]']

async function post(path: string, body: string, headers: Record<string, string> = {}, method = 'POST') {
  const res = await fetch(gw.url + path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body,
  })
  return { status: res.status, body: await res.text() }
}

test('no key, a wrong key: 401 on every route, whatever the body', async () => {
  const seen: string[] = []
  for (const path of [...ROUTES, ...QUERY_ROUTES])
    for (const body of BAD_BODIES) {
      for (const headers of [{}, { authorization: 'Bearer sk-not-a-key' }] as Record<string, string>[]) {
        const r = await post(path, body, headers)
        if (r.status !== 401)
          seen.push(`${path} ${body} ${JSON.stringify(headers)} → ${r.status} ${r.body.slice(0, 80)}`)
      }
    }
  assert.equal(seen, [])
})

test('the admin API and the knowledge base: no admin key, a wrong one: 401 whatever the body; with it, 400', async () => {
  const seen: string[] = []
  for (const [method, path] of ADMIN_ROUTES)
    for (const body of BAD_BODIES) {
      for (const headers of [{}, { authorization: 'Bearer sk-not-the-admin' }] as Record<string, string>[]) {
        const r = await post(path, body, headers, method)
        if (r.status !== 401) seen.push(`${method} ${path} ${body} ${JSON.stringify(headers)} → ${r.status}`)
      }
      const admin = await post(path, body, { authorization: `Bearer ${ADMIN}` }, method)
      if (admin.status !== 400)
        seen.push(`${method} ${path} ${body} admin → ${admin.status} ${admin.body.slice(0, 80)}`)
    }
  assert.equal(seen, [])
})

test('with the key, the same bodies meet the route 400', async () => {
  const seen: string[] = []
  for (const path of ROUTES)
    for (const body of BAD_BODIES) {
      const r = await post(path, body, { authorization: `Bearer ${TEST_KEY}`, 'x-api-key': TEST_KEY })
      if (r.status !== 400) seen.push(`${path} ${body} → ${r.status} ${r.body.slice(0, 80)}`)
    }
  assert.equal(seen, [])
})

test('without a key the body is not needed: a body over the limit still meets 401', async () => {
  const r = await post('/v1/embeddings', `{"input":"${'x'.repeat(70 * 1024 * 1024)}"}`)
  assert.is(r.status, 401)
})

test.run()
