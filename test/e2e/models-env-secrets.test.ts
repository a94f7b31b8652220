// biome-ignore-all lint/suspicious/noTemplateCurlyInString: models.yaml's own ${NAME} syntax, written as the operator writes it
/**
 * `${NAME}` in models.yaml end to end: a backend's url, api_key and header values are read from
 * the gateway's environment at load; the model server (a local server that keeps the headers it
 * got) receives the key as its bearer token; and the values are nowhere an operator or a client
 * can read: not in the admin API, /openapi.json, /metrics, /readyz, the models list, an error,
 * the log or the access log. A variable that is not set stops the boot naming it.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import type http from 'node:http'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { modelsWith } from '../support/deployment-files.js'
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream.js'

const test = suite('e2e models.yaml ${NAME} secrets')
let gw: TestGateway
let upstream: FakeUpstream
const ADMIN = 'sk-admin-env-secrets'
const TOKEN = 'tok-e2e-8c1f0f5e-upstream-secret'
const TEAM = 'team-e2e-b7a9'

const models = modelsWith({
  backends: {
    vault: {
      url: '${VAULT_URL}',
      api_key: '${VAULT_TOKEN}',
      headers: { 'x-team': '${VAULT_TEAM}' },
      forward_headers: ['x-fail'],
    },
  },
  models: [
    { id: 'vaulted', model_type: 'chat', backend: 'vault', served_name: 'vault-model', reported_name: 'vault-model' },
  ],
})

test.before(async () => {
  upstream = await startFakeUpstream()
  upstream.handle((req: http.IncomingMessage, _body: string, res: http.ServerResponse) => {
    if (req.headers['x-fail'])
      return void res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'bad key', type: 'AuthenticationError' } }))
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'chatcmpl-vault',
        object: 'chat.completion',
        created: 1,
        model: 'vault-model',
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
      }),
    )
  })
  gw = await startTestGateway({
    files: { 'config/models.yaml': models },
    env: {
      SLUICE_DEMO_KEY: TEST_KEY,
      SLUICE_ADMIN_KEY: ADMIN,
      VAULT_URL: upstream.url,
      VAULT_TOKEN: TOKEN,
      VAULT_TEAM: TEAM,
    },
  })
})

test.after(async () => {
  await gw?.close()
  await upstream?.close()
})

test('the model server receives the variable as its bearer token, and the header values', async () => {
  const reply = await gw
    .openai()
    .chat.completions.create({ model: 'vaulted', messages: [{ role: 'user', content: 'hi' }] })
  assert.is(reply.choices[0]!.message.content, 'ok')
  const got = upstream.received.at(-1)!
  assert.is(got.headers.authorization, `Bearer ${TOKEN}`)
  assert.is(got.headers['x-team'], TEAM)
  assert.is((got.body as { model?: string }).model, 'vault-model')
})

test('the values are in no answer, log or access log', async () => {
  // An upstream error passes through: its text holds the server's words, never the key.
  const refused = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json', 'x-fail': '1' },
    body: JSON.stringify({ model: 'vaulted', messages: [{ role: 'user', content: 'hi' }] }),
  })
  assert.is(refused.status, 401)
  const texts = [`error: ${await refused.text()}`]
  const admin = { authorization: `Bearer ${ADMIN}` }
  const user = { authorization: `Bearer ${TEST_KEY}` }
  const reads: [string, Record<string, string>][] = [
    ['/admin/models', admin],
    ['/admin/groups', admin],
    ['/admin/keys', admin],
    ['/admin/usage?by=model', admin],
    ['/admin/records?limit=100', admin],
    ['/openapi.json', {}],
    ['/metrics', {}],
    ['/readyz', {}],
    ['/v1/models', user],
    ['/v1/models/vaulted', user],
  ]
  for (const [where, headers] of reads) {
    const res = await fetch(`${gw.url}${where}`, { headers })
    assert.ok(res.status < 500, `${where}: ${res.status}`)
    texts.push(`${where}: ${await res.text()}`)
  }
  // The admin API's models view shows the backend by name and capacity, as ever.
  assert.ok(texts.some((t) => t.startsWith('/admin/models:') && t.includes('"vault"')))
  await gw.generation().records.flush()
  texts.push(`log: ${gw.logs.join('\n')}`)
  const accessLog = path.join(gw.dataDir, 'access.log')
  if (fs.existsSync(accessLog)) texts.push(`access log: ${fs.readFileSync(accessLog, 'utf8')}`)
  for (const text of texts) {
    for (const secret of [TOKEN, TEAM]) assert.not.ok(text.includes(secret), `${text.slice(0, 60)}… holds ${secret}`)
  }
})

test('a variable that is not set: the gateway does not start, and says which', async () => {
  try {
    const started = await startTestGateway({
      files: { 'config/models.yaml': models },
      env: { SLUICE_DEMO_KEY: TEST_KEY, VAULT_URL: upstream.url, VAULT_TEAM: TEAM },
    })
    await started.close()
    assert.unreachable('the gateway started without VAULT_TOKEN')
  } catch (err) {
    assert.is((err as Error).name, 'ConfigError')
    assert.match(
      (err as Error).message,
      /models\.yaml: backend vault: api_key names the environment variable VAULT_TOKEN, which is not set/,
    )
  }
})

test.run()
