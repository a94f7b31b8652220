/**
 * The admin API end to end: its own pipeline and key; groups and keys made, switched off and
 * on, rotated and deleted over HTTP, each change applying to the very next request without a
 * restart; usage per key and per model; and GET /metrics with the fair queue's figures.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type OpenAI from 'openai'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import budget from '../../plugins/budget/index.js'
import fairQueue from '../../plugins/fair-queue/index.js'

const test = suite('e2e admin api')
let gw: TestGateway
const ADMIN = 'sk-admin-e2e'

test.before(async () => {
  gw = await startTestGateway({ env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN } })
})
test.after(async () => gw.close())

async function admin(
  method: string,
  path: string,
  body?: unknown,
  key = ADMIN,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${gw.url}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

const chat = (key: string, model = 'sim-chat-instruct') =>
  gw.openai(key).chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }], max_tokens: 5 })

async function failure(p: Promise<unknown>): Promise<[number | undefined, string | undefined]> {
  try {
    await p
    return [200, undefined]
  } catch (err) {
    const e = err as InstanceType<typeof OpenAI.APIError>
    return [e.status, (e.error as { message?: string } | undefined)?.message]
  }
}

let secret = ''

test('the admin API takes only its own key', async () => {
  assert.equal((await admin('GET', '/keys', undefined, TEST_KEY)).status, 401, 'a tenant key is not the admin key')
  const res = await fetch(`${gw.url}/admin/keys`)
  assert.is(res.status, 401)
  assert.equal(await res.json(), { error: { message: 'missing bearer token', type: 'gateway_error' } })
})

test('a group and a key made here serve at once; the secret is shown once', async () => {
  const group = await admin('PUT', '/groups/research', {
    models: ['sim-chat-instruct', 'sim-chat'],
    weight: 2,
    tokens_per_minute: 100000,
  })
  assert.equal(group, {
    status: 200,
    body: {
      id: 'research',
      models: ['sim-chat-instruct', 'sim-chat'],
      weight: 2,
      budget: null,
      tokens_per_minute: 100000,
      source: 'store',
    },
  })
  const made = await admin('POST', '/keys', { id: 'alice', group: 'research' })
  assert.is(made.status, 201)
  secret = String(made.body.secret)
  const reply = await chat(secret)
  assert.is(reply.object, 'chat.completion')
  const listed = await admin('GET', '/keys')
  assert.not.ok(JSON.stringify(listed.body).includes(secret), 'listing never shows a secret')
  assert.is((await admin('GET', '/keys/alice')).body.group, 'research')
})

test('a key switched off gets 403 on its next request, without a restart; switched on, it works again', async () => {
  assert.is((await admin('PATCH', '/keys/alice', { enabled: false })).body.enabled, false)
  assert.equal(await failure(chat(secret)), [403, 'api key disabled'])
  await admin('PATCH', '/keys/alice', { enabled: true })
  assert.equal(await failure(chat(secret)), [200, undefined])
})

test('the seed demo key can be switched off here too (the store overrides keys.yaml)', async () => {
  await admin('PATCH', '/keys/demo', { enabled: false })
  assert.equal(await failure(chat(TEST_KEY)), [403, 'api key disabled'])
  await admin('PATCH', '/keys/demo', { enabled: true })
  assert.equal(await failure(chat(TEST_KEY)), [200, undefined])
})

test("a group's permitted models apply at once", async () => {
  assert.equal(await failure(chat(secret, 'sim-vision')), [403, 'model not permitted for tenant'])
  await admin('PUT', '/groups/research', { models: ['*'], weight: 2 })
  assert.equal(await failure(chat(secret, 'sim-vision')), [200, undefined])
})

test('a budget set here applies to the next request', async () => {
  await admin('PATCH', '/keys/alice', { budget: { amount: 0, term: 'day' } })
  assert.equal(await failure(chat(secret)), [403, 'api key term budget exhausted'])
  await admin('PATCH', '/keys/alice', { budget: null })
  assert.equal(await failure(chat(secret)), [200, undefined])
})

test('rotation: the old secret stops, the new one works; a legacy key moves to the current gateway', async () => {
  const legacy = await admin('POST', '/keys', { id: 'old-timer', group: 'research', legacy: true })
  const oldSecret = String(legacy.body.secret)
  const verdict = { questions: { q: { type: 'boolean', instructions: 'Is it raining?' } }, state: 'sunny' }
  const before = await fetch(`${gw.url}/v1/verdicts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${oldSecret}` },
    body: JSON.stringify(verdict),
  })
  assert.equal(
    [before.status, await before.json()],
    [404, { detail: 'Not Found' }],
    'the legacy gateway lacks verdicts',
  )
  const rotated = await admin('POST', '/keys/old-timer/rotate')
  assert.is((rotated.body.key as { legacy: boolean }).legacy, false)
  const newSecret = String(rotated.body.secret)
  assert.equal(await failure(chat(oldSecret)), [401, 'invalid api key'])
  const after = await fetch(`${gw.url}/v1/verdicts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${newSecret}` },
    body: JSON.stringify(verdict),
  })
  assert.is.not(after.status, 404, 'now on the current gateway')
})

test('deleted: 401 on the next request', async () => {
  const made = await admin('POST', '/keys', { id: 'temp', group: 'research' })
  await admin('DELETE', '/keys/temp')
  assert.equal(await failure(chat(String(made.body.secret))), [401, 'invalid api key'])
  assert.is((await admin('GET', '/keys/temp')).status, 404)
})

test('bad input: a clear 4xx, nothing changed', async () => {
  assert.equal(await admin('POST', '/keys', { group: 'research', colour: 'red' }), {
    status: 400,
    body: { error: { message: "invalid request: (root): unknown property 'colour'", type: 'gateway_error' } },
  })
  assert.is((await admin('POST', '/keys', { id: 'alice', group: 'research' })).status, 409)
  assert.is((await admin('PATCH', '/keys/nobody', { enabled: false })).status, 404)
  assert.is((await admin('PUT', '/groups/x', { weight: 'heavy' })).status, 400)
  assert.is((await admin('DELETE', '/groups/research')).status, 409)
  const bad = await fetch(`${gw.url}/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}` },
    body: '{not json',
  })
  assert.is(bad.status, 400)
})

test('usage per key and per model over a period', async () => {
  const byKey = await admin('GET', '/usage?by=key')
  const alice = (byKey.body.data as Record<string, number | string>[]).find((r) => r.key === 'alice')!
  assert.ok(Number(alice.requests) >= 4, 'alice made requests')
  assert.ok(Number(alice.total_tokens) > 0 && Number(alice.value) > 0)
  const byModel = await admin(
    'GET',
    `/usage?by=model&key=alice&from=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`,
  )
  assert.ok((byModel.body.data as { model: string }[]).some((r) => r.model === 'sim-vision'))
  const records = await admin('GET', '/records?key=alice&limit=2')
  assert.is((records.body.data as unknown[]).length, 2)
})

test('a hot reload keeps the stores: keys made here, budgets, queues and metrics carry over', async () => {
  const before = gw.generation()
  // Budgets and queues are their plugins' states, kept by the process across reloads.
  const states = () => [gw.plugins.get(budget), gw.plugins.get(fairQueue)]
  const statesBefore = states()
  assert.ok(await gw.reload())
  const after = gw.generation()
  assert.is.not(after, before)
  for (const [i, state] of states().entries()) assert.is(state, statesBefore[i])
  assert.is(after.records, before.records)
  assert.is(after.metrics, before.metrics)
  assert.equal(await failure(chat(secret)), [200, undefined], 'the key made through the admin API still works')
})

test('GET /metrics: the fair queue per model, in Prometheus text', async () => {
  const res = await fetch(`${gw.url}/metrics`)
  assert.is(res.status, 200)
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/)
  const text = await res.text()
  assert.match(text, /^sluice_queue_running\{model="sim-chat-instruct",pool="sim"\} 0$/m)
  assert.match(text, /^sluice_queue_waiting\{model="sim-chat-instruct",pool="sim"\} 0$/m)
  assert.match(text, /^sluice_queue_wait_seconds_count\{model="sim-chat-instruct"\} \d+$/m)
  assert.match(text, /^sluice_queue_timeouts_total 0$/m)
  assert.match(text, /^sluice_budget_refusals_total\{budget="key_term"\} 1$/m)
  assert.not.ok(text.includes('alice'), 'no key ids in metrics')
})

test.run()
