/**
 * The admin API's projects and tokens end to end, over HTTP: every route and error, and a token
 * made here authenticating at once on a route behind `query-auth` (a probe pipeline written into
 * the test's deployment: query-auth, then the model list), until it is deleted.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { startTestGateway, TEST_DEV_TOKEN, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { defaultConfigDir } from '../../kernel/contract/paths.js'

const test = suite('e2e admin api: projects and tokens')
let gw: TestGateway
const ADMIN = 'sk-admin-projects-e2e'

const probe = `
pipeline: probe
prefix: /probe
errors: openai
routes:
  - id: probe-models
    http: GET /models
    steps: [query-auth, { model-catalog: { action: list } }]
`

test.before(async () => {
  const server = fs
    .readFileSync(path.join(defaultConfigDir, 'server.yaml'), 'utf8')
    .replace(/^pipelines: \[(.*)\]$/m, 'pipelines: [$1, probe.yaml]')
  gw = await startTestGateway({
    env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN },
    files: { 'config/server.yaml': server, 'pipelines/probe.yaml': probe },
  })
})
test.after(async () => gw.close())

async function admin(
  method: string,
  route: string,
  body?: unknown,
  key: string | null = ADMIN,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const headers: Record<string, string> = {}
  if (key !== null) headers.authorization = `Bearer ${key}`
  if (body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(`${gw.url}/admin${route}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers }
}

const probeModels = (token: string, project: string) =>
  fetch(`${gw.url}/probe/models?project_id=${project}`, { headers: { authorization: `Bearer ${token}` } })
const message = (body: Record<string, unknown>) => (body.error as { message?: string } | undefined)?.message

test('every route needs the admin key: 401 without one, 401 with a tenant key or a project token', async () => {
  for (const [method, route] of [
    ['GET', '/projects'],
    ['GET', '/projects/demo'],
    ['PUT', '/projects/x'],
    ['DELETE', '/projects/x'],
    ['GET', '/projects/demo/tokens'],
    ['POST', '/projects/demo/tokens'],
    ['DELETE', '/projects/demo/tokens/t'],
  ] as const) {
    const none = await admin(method, route, method === 'PUT' || method === 'POST' ? {} : undefined, null)
    assert.is(none.status, 401, `${method} ${route}`)
    assert.is(message(none.body), 'missing bearer token')
  }
  assert.is((await admin('GET', '/projects', undefined, TEST_KEY)).status, 401)
  assert.is((await admin('GET', '/projects', undefined, TEST_DEV_TOKEN)).status, 401)
})

test('the config project is listed, read-only (409), with its demo tokens (no secrets)', async () => {
  const list = await admin('GET', '/projects')
  assert.is(list.status, 200)
  assert.is(list.headers.get('cache-control'), 'no-store')
  const demo = (list.body.data as Record<string, unknown>[]).find((p) => p.id === 'demo')!
  assert.is(demo.source, 'config')
  assert.is(demo.key, 'demo')
  assert.is((await admin('GET', '/projects/demo')).body.key, 'demo')
  assert.equal(await admin('PUT', '/projects/demo', { key: 'demo' }).then((r) => [r.status, message(r.body)]), [
    409,
    'project demo is defined in config/projects.yaml and is read-only through the admin API',
  ])
  assert.is((await admin('DELETE', '/projects/demo')).status, 409)
  const tokens = await admin('GET', '/projects/demo/tokens')
  assert.equal(
    (tokens.body.data as Record<string, unknown>[]).map((t) => [t.id, t.kind, t.source]),
    [
      ['demo-developer', 'developer', 'config'],
      ['demo-service', 'service', 'config'],
    ],
  )
  assert.not.ok(JSON.stringify(tokens.body).includes(TEST_DEV_TOKEN))
  assert.equal(await admin('DELETE', '/projects/demo/tokens/demo-developer').then((r) => [r.status, message(r.body)]), [
    409,
    'token demo-developer is defined in config/projects.yaml and is read-only through the admin API',
  ])
})

test('PUT creates (201) then replaces (200) a project; GET shows it; bad bodies are 400 naming the field', async () => {
  const made = await admin('PUT', '/projects/acme', {
    key: 'demo',
    defaults: { model_name: 'sim-chat', enable_search: false },
    compare_models: ['sim-chat-thinking'],
  })
  assert.is(made.status, 201)
  assert.equal(
    { ...made.body, created_at: null, updated_at: null },
    {
      id: 'acme',
      key: 'demo',
      defaults: { model_name: 'sim-chat', enable_search: false },
      compare_models: ['sim-chat-thinking'],
      source: 'store',
      created_at: null,
      updated_at: null,
    },
  )
  assert.match(String(made.body.created_at), /^\d{4}-\d{2}-\d{2}T/)
  const replaced = await admin('PUT', '/projects/acme', {
    key: 'demo',
    defaults: { model_params: { temperature: 0.5 } },
  })
  assert.is(replaced.status, 200)
  assert.equal(replaced.body.defaults, { model_params: { temperature: 0.5 } })
  assert.is(replaced.body.created_at, made.body.created_at)
  assert.equal((await admin('GET', '/projects/acme')).body.defaults, { model_params: { temperature: 0.5 } })

  const cases: [unknown, string][] = [
    [
      { key: 'demo', defaults: { model_params: { temperature: 9 } } },
      'invalid request: /defaults/model_params/temperature: must be <= 2',
    ],
    [{ key: 'demo', tokens: [] }, "invalid request: (root): unknown property 'tokens'"],
    [{ defaults: {} }, "invalid request: (root): must have required property 'key'"],
    [{ key: 'no-such-key' }, 'invalid request: /key: key no-such-key does not exist'],
    [[1, 2], 'invalid request: the body must be a project object'],
  ]
  for (const [body, expected] of cases) {
    const res = await admin('PUT', '/projects/broken', body)
    assert.equal([res.status, message(res.body)], [400, expected], JSON.stringify(body))
  }
  assert.is((await admin('GET', '/projects/broken')).status, 404, 'a refused put made nothing')
})

test('unknown projects and tokens are 404', async () => {
  for (const [method, route] of [
    ['GET', '/projects/ghost'],
    ['DELETE', '/projects/ghost'],
    ['GET', '/projects/ghost/tokens'],
    ['DELETE', '/projects/ghost/tokens/t'],
  ] as const) {
    const res = await admin(method, route)
    assert.equal([res.status, message(res.body)], [404, 'project ghost does not exist'], `${method} ${route}`)
  }
  assert.equal(
    await admin('POST', '/projects/ghost/tokens', { kind: 'developer' }).then((r) => [r.status, message(r.body)]),
    [404, 'project ghost does not exist'],
  )
  assert.equal(await admin('DELETE', '/projects/acme/tokens/tok-none').then((r) => [r.status, message(r.body)]), [
    404,
    'token tok-none of project acme does not exist',
  ])
})

test('a token made here (secret shown once) authenticates on a query-auth route at once, until deleted', async () => {
  const bad = await admin('POST', '/projects/acme/tokens', { kind: 'admin' })
  assert.equal(
    [bad.status, message(bad.body)],
    [400, 'invalid request: /kind: must be equal to one of the allowed values (developer, service)'],
  )
  assert.is((await admin('POST', '/projects/acme/tokens', {})).status, 400)

  const made = await admin('POST', '/projects/acme/tokens', { kind: 'developer' })
  assert.is(made.status, 201)
  assert.is(made.headers.get('cache-control'), 'no-store')
  const secret = String(made.body.secret)
  assert.match(secret, /^qt-/)
  const token = made.body.token as Record<string, unknown>
  assert.equal([token.project, token.kind, token.source], ['acme', 'developer', 'store'])

  const listed = await admin('GET', '/projects/acme/tokens')
  assert.equal(
    (listed.body.data as Record<string, unknown>[]).map((t) => t.id),
    [token.id],
  )
  assert.not.ok(JSON.stringify(listed.body).includes(secret), 'never the secret')
  assert.not.ok(/[0-9a-f]{64}/.test(JSON.stringify(listed.body)), 'never a digest')

  const ok = await probeModels(secret, 'acme')
  assert.is(ok.status, 200)
  assert.ok(((await ok.json()) as { data: unknown[] }).data.length > 0)
  assert.is((await probeModels(secret, 'demo')).status, 403, 'not valid for another project')

  assert.equal((await admin('DELETE', `/projects/acme/tokens/${token.id}`)).body, {
    id: token.id,
    project: 'acme',
    deleted: true,
  })
  assert.is((await probeModels(secret, 'acme')).status, 401)

  // A token added to the config project works too.
  const demoToken = await admin('POST', '/projects/demo/tokens', { kind: 'service' })
  assert.is((await probeModels(String(demoToken.body.secret), 'demo')).status, 200)
})

test('DELETE removes the project and its tokens', async () => {
  const made = await admin('POST', '/projects/acme/tokens', { kind: 'service' })
  const secret = String(made.body.secret)
  assert.is((await probeModels(secret, 'acme')).status, 200)
  assert.equal((await admin('DELETE', '/projects/acme')).body, { id: 'acme', deleted: true })
  assert.is((await admin('GET', '/projects/acme')).status, 404)
  assert.is((await probeModels(secret, 'acme')).status, 401)
  assert.is((await admin('PUT', '/projects/acme', { key: 'demo' })).status, 201)
  assert.equal((await admin('GET', '/projects/acme/tokens')).body.data, [], 'made again: none of the old tokens')
})

test.run()
