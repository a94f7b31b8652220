import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import auth from '../../../plugins/auth/index.js'
import { makeKernel, runPlugin, setupPlugin, TEST_KEY } from '../../../bin/testing/harness.js'
import { defaultConfigDir } from '../../../kernel/contract/paths.js'
import { formatHash, hashSecret } from '../../../protocols/credentials/secrets.js'

const test = suite('plugin auth')

// A config folder whose keys.yaml has a switched-off key and a legacy key.
const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-auth-'))
for (const f of fs.readdirSync(defaultConfigDir))
  if (fs.statSync(path.join(defaultConfigDir, f)).isFile())
    fs.copyFileSync(path.join(defaultConfigDir, f), path.join(configDir, f))
fs.writeFileSync(
  path.join(configDir, 'keys.yaml'),
  `groups: { demo: {}, other: {} }
keys:
  - { id: demo, group: demo, demo: true }
  - { id: off, group: demo, enabled: false, hash: "${formatHash(hashSecret('sk-off'))}" }
  - { id: old, group: other, legacy: true, hash: "${formatHash(hashSecret('sk-legacy'))}" }
  - { id: gone, group: demo, expires_at: "2026-06-01T00:00:00Z", hash: "${formatHash(hashSecret('sk-gone'))}" }
  - { id: gone-off, group: demo, enabled: false, expires_at: 1780272000000, hash: "${formatHash(hashSecret('sk-gone-off'))}" }
  - { id: two, group: demo, requests_per_minute: 2, hash: "${formatHash(hashSecret('sk-two'))}" }
`,
)
// A clock the tests move: 2026-06-01T00:00:00Z is when `gone` expires.
const EXPIRY = Date.parse('2026-06-01T00:00:00Z')
let clock = EXPIRY - 1
const kernel = makeKernel({ configDir, now: () => clock })

test('no Authorization header: 401 missing bearer token, next not called', async () => {
  const run = await runPlugin(auth, {}, { kernel })
  assert.is(run.error?.status, 401)
  assert.is(run.error?.message, 'missing bearer token')
  assert.is(run.nextCalled, false)
})

test('a non-bearer scheme counts as missing', async () => {
  const run = await runPlugin(auth, {}, { kernel, headers: { authorization: `Basic ${TEST_KEY}` } })
  assert.is(run.error?.message, 'missing bearer token')
})

test('unknown key: 401 invalid api key', async () => {
  const run = await runPlugin(auth, {}, { kernel, headers: { authorization: 'Bearer sk-nope' } })
  assert.is(run.error?.status, 401)
  assert.is(run.error?.message, 'invalid api key')
})

test('switched-off key: 403 api key disabled', async () => {
  const run = await runPlugin(auth, {}, { kernel, headers: { authorization: 'Bearer sk-off' } })
  assert.is(run.error?.status, 403)
  assert.is(run.error?.message, 'api key disabled')
})

test('valid key: principal set with id and group, next called', async () => {
  const run = await runPlugin(auth, {}, { kernel, headers: { authorization: `Bearer ${TEST_KEY}` } })
  assert.is(run.error, undefined)
  assert.ok(run.nextCalled)
  assert.equal(run.ex.principal, { keyId: 'demo', group: 'demo', legacy: false })
})

test('legacy key on a route the older gateway lacks: 404 {"detail":"Not Found"}', async () => {
  const run = await runPlugin(auth, { legacy: 'not-found' }, { kernel, headers: { authorization: 'Bearer sk-legacy' } })
  assert.is(run.error?.status, 404)
  assert.equal(run.error?.rawBody, { detail: 'Not Found' })
})

test('legacy key on an ordinary route is served', async () => {
  const run = await runPlugin(auth, {}, { kernel, headers: { authorization: 'Bearer sk-legacy' } })
  assert.is(run.error, undefined)
  assert.is(run.ex.principal?.legacy, true)
})

test('in-process calls keep the caller principal without a header', async () => {
  const principal = { keyId: 'demo', group: 'demo', legacy: false }
  const run = await runPlugin(auth, {}, { kernel, transport: 'internal', principal })
  assert.ok(run.nextCalled)
  assert.equal(run.ex.principal, principal)
})

test('query_param: the key may come as ?access_token=, only where the route allows it; the header wins', async () => {
  const allowed = await runPlugin(auth, { query_param: 'access_token' }, { kernel, query: `access_token=${TEST_KEY}` })
  assert.ok(allowed.nextCalled)
  assert.is(allowed.ex.principal?.keyId, 'demo')
  const notAllowed = await runPlugin(auth, {}, { kernel, query: `access_token=${TEST_KEY}` })
  assert.equal([notAllowed.error?.status, notAllowed.error?.message], [401, 'missing bearer token'])
  const wrong = await runPlugin(auth, { query_param: 'access_token' }, { kernel, query: 'access_token=sk-nope' })
  assert.equal([wrong.error?.status, wrong.error?.message], [401, 'invalid api key'])
  const both = await runPlugin(
    auth,
    { query_param: 'access_token' },
    { kernel, query: `access_token=${TEST_KEY}`, headers: { authorization: 'Bearer sk-nope' } },
  )
  assert.is(both.error?.message, 'invalid api key', 'the header is read first')
})

test('key_header: the key may come as x-api-key, only where the route allows it; Authorization wins', async () => {
  const allowed = await runPlugin(auth, { key_header: 'x-api-key' }, { kernel, headers: { 'x-api-key': TEST_KEY } })
  assert.is(allowed.ex.principal?.keyId, 'demo')
  const notAllowed = await runPlugin(auth, {}, { kernel, headers: { 'x-api-key': TEST_KEY } })
  assert.equal([notAllowed.error?.status, notAllowed.error?.message], [401, 'missing bearer token'])
  const wrong = await runPlugin(auth, { key_header: 'x-api-key' }, { kernel, headers: { 'x-api-key': 'sk-nope' } })
  assert.equal([wrong.error?.status, wrong.error?.message], [401, 'invalid api key'])
  const both = await runPlugin(
    auth,
    { key_header: 'x-api-key' },
    { kernel, headers: { 'x-api-key': TEST_KEY, authorization: 'Bearer sk-nope' } },
  )
  assert.is(both.error?.message, 'invalid api key', 'Authorization is read first')
})

test('a key past its expires_at: 401 api key expired (before the on/off switch); until then it is served', async () => {
  clock = EXPIRY - 1
  const before = await runPlugin(auth, {}, { kernel, headers: { authorization: 'Bearer sk-gone' } })
  assert.is(before.ex.principal?.keyId, 'gone')
  clock = EXPIRY
  const after = await runPlugin(auth, {}, { kernel, headers: { authorization: 'Bearer sk-gone' } })
  assert.equal([after.error?.status, after.error?.message], [401, 'api key expired'])
  assert.is(after.error?.headers['www-authenticate'], 'Bearer')
  assert.is(after.nextCalled, false)
  const off = await runPlugin(auth, {}, { kernel, headers: { authorization: 'Bearer sk-gone-off' } })
  assert.equal([off.error?.status, off.error?.message], [401, 'api key expired'])
})

test('requests_per_minute: 2 → the third request in the minute is 429 with Retry-After until the oldest leaves', async () => {
  const call = () => runPlugin(auth, {}, { kernel, headers: { authorization: 'Bearer sk-two' } })
  const start = Date.parse('2026-07-01T00:00:00Z')
  clock = start + 500
  assert.ok((await call()).nextCalled)
  clock = start + 10_000
  assert.ok((await call()).nextCalled)
  clock = start + 20_250
  const third = await call()
  assert.equal([third.error?.status, third.error?.message], [429, 'request limit exceeded: 2 requests per minute'])
  // The first request's second (start … start+1 s) leaves the window at start + 60 s: 39.75 s, rounded up.
  assert.is(third.error?.headers['retry-after'], '40')
  assert.is(third.nextCalled, false)
  clock = start + 59_999
  assert.is((await call()).error?.headers['retry-after'], '1', 'a refused request is not counted')
  clock = start + 60_000
  assert.ok((await call()).nextCalled, 'the first has left the window')
  assert.is((await call()).error?.headers['retry-after'], '10', 'the second leaves at start + 70 s')
})

test('a key without requests_per_minute is not counted; in-process calls are not counted', async () => {
  clock = Date.parse('2026-08-01T00:00:00Z')
  for (let i = 0; i < 5; i++)
    assert.ok((await runPlugin(auth, {}, { kernel, headers: { authorization: `Bearer ${TEST_KEY}` } })).nextCalled)
  const principal = { keyId: 'two', group: 'demo', legacy: false }
  for (let i = 0; i < 5; i++)
    assert.ok((await runPlugin(auth, {}, { kernel, transport: 'internal', principal })).nextCalled)
  assert.ok((await runPlugin(auth, {}, { kernel, headers: { authorization: 'Bearer sk-two' } })).nextCalled)
})

test('options are validated like the loader does', async () => {
  try {
    await setupPlugin(auth, { legacy: 'maybe' }, kernel)
    assert.unreachable('bad option accepted')
  } catch (err) {
    assert.match(String(err), /legacy/)
  }
})

test.run()
