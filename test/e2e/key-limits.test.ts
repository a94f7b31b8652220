/**
 * A key's own expiry, models and request limit, end to end with the openai SDK over real
 * sockets (issue 29, points 2 and 6): an expired key gets 401 "api key expired"; a key limited
 * to one model sees that one model, and any other answers GET /models/<id> as an unknown name
 * does and is refused on chat as a model its group may not use is; `requests_per_minute: 2`
 * answers the third request 429 with Retry-After; the admin API sets, changes and clears the
 * three fields, and refuses bad values with 400, changing nothing; and across three gateways
 * on one Redis the limit is global.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import OpenAI from 'openai'
import { Redis } from 'ioredis'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { keysFile, serverWith } from '../support/deployment-files.js'
import { startReplica, type Replica } from '../support/replica.js'
import { REDIS_URL, uniqueName } from '../support/services.js'
import { suiteNeeding } from '../support/needs-server.js'

const ADMIN = 'sk-admin-key-limits'
const keys = keysFile({ narrow: { models: ['sim-chat-instruct', 'sim-chat'] } }, [
  { id: 'expired', group: 'demo', secret: 'sk-expired', expires_at: '2020-01-01T00:00:00Z' },
  { id: 'one-model', group: 'demo', secret: 'sk-one-model', models: ['sim-vision'] },
  { id: 'narrow', group: 'narrow', secret: 'sk-narrow' },
  { id: 'two-a-minute', group: 'demo', secret: 'sk-two', requests_per_minute: 2 },
])

const hello = (model = 'sim-chat-instruct') => ({
  model,
  messages: [{ role: 'user' as const, content: 'hello' }],
  max_tokens: 5,
})

/** What the SDK threw: its class, status, the error body's message and the response headers. */
async function refusal(p: Promise<unknown>) {
  try {
    await p
  } catch (err) {
    if (!(err instanceof OpenAI.APIError)) throw err
    return { err, status: err.status, message: (err.error as { message?: string } | undefined)?.message }
  }
  throw new Error('the request was served')
}

const one = suite('e2e key limits: expiry, own models, requests per minute')
let gw: TestGateway
one.before(async () => {
  gw = await startTestGateway({
    env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN },
    files: { 'config/keys.yaml': keys },
  })
})
one.after(async () => gw?.close())

/** A key as the admin API shows it (the fields these tests read). */
interface KeyView {
  id: string
  expires_at: string | null
  expired: boolean
  models: string[] | null
  requests_per_minute: number | null
  updated_at: string | null
}
/** Every shape an admin answer here takes, as one type to read fields from. */
type AdminBody = KeyView & { key: KeyView; secret: string; data: KeyView[]; error: { message: string } }

async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: AdminBody }> {
  const res = await fetch(`${gw.url}/admin${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as AdminBody }
}

one('an expired key: 401 "api key expired" (openai.AuthenticationError) on every route', async () => {
  const client = gw.openai('sk-expired')
  const calls = [
    () => client.chat.completions.create(hello()),
    () => client.models.list(),
    () => client.models.retrieve('sim-chat'),
  ]
  for (const call of calls) {
    const r = await refusal(call())
    assert.ok(r.err instanceof OpenAI.AuthenticationError)
    assert.equal([r.status, r.message], [401, 'api key expired'])
  }
  const raw = await fetch(`${gw.url}/v1/models`, { headers: { authorization: 'Bearer sk-expired' } })
  assert.equal(await raw.json(), { error: { message: 'api key expired', type: 'gateway_error' } })
  assert.is(raw.headers.get('www-authenticate'), 'Bearer')
})

one('a key limited to one model sees exactly that model in client.models.list()', async () => {
  const ids: string[] = []
  for await (const m of gw.openai('sk-one-model').models.list()) ids.push(m.id)
  assert.equal(ids, ['sim-vision'])
  // The demo key (group `*`, no models of its own) still sees the whole catalog.
  const all: string[] = []
  for await (const m of gw.openai().models.list()) all.push(m.id)
  assert.ok(all.length > 10 && all.includes('sim-chat-instruct'), `${all.length} models`)
})

one(
  'another model: retrieve answers exactly as an unknown name; chat is refused as for a group that may not use it',
  async () => {
    const client = gw.openai('sk-one-model')
    assert.is((await client.models.retrieve('sim-vision')).id, 'sim-vision')
    const hidden = await refusal(client.models.retrieve('sim-chat-instruct'))
    const unknown = await refusal(client.models.retrieve('no-such-model'))
    assert.ok(hidden.err instanceof OpenAI.NotFoundError)
    assert.equal([hidden.status, hidden.message], [404, 'model sim-chat-instruct is not registered'])
    assert.equal([unknown.status, unknown.message], [404, 'model no-such-model is not registered'])
    const body = async (id: string) =>
      (await fetch(`${gw.url}/v1/models/${id}`, { headers: { authorization: 'Bearer sk-one-model' } })).text()
    assert.is(
      (await body('sim-chat-instruct')).replace('sim-chat-instruct', 'X'),
      (await body('no-such-model')).replace('no-such-model', 'X'),
    )

    // The narrow group may not use sim-vision: its key's refusal is the one to match.
    const chat = await refusal(client.chat.completions.create(hello('sim-chat-instruct')))
    const byGroup = await refusal(gw.openai('sk-narrow').chat.completions.create(hello('sim-vision')))
    assert.ok(chat.err instanceof OpenAI.PermissionDeniedError)
    assert.equal([chat.status, chat.message], [403, 'model not permitted for tenant'])
    assert.equal([chat.status, chat.message], [byGroup.status, byGroup.message], 'the same answer as the group refusal')
    const family = await refusal(client.chat.completions.create(hello('sim-chat')))
    assert.equal([family.status, family.message], [403, 'model not permitted for tenant'], 'nor through a family')
    assert.is((await client.chat.completions.create(hello('sim-vision'))).object, 'chat.completion')
  },
)

one(
  'requests_per_minute: 2 → the third request is 429 (openai.RateLimitError) with Retry-After in whole seconds',
  async () => {
    const client = gw.openai('sk-two')
    assert.is((await client.chat.completions.create(hello())).object, 'chat.completion')
    assert.is((await client.chat.completions.create(hello())).object, 'chat.completion')
    const third = await refusal(client.chat.completions.create(hello()))
    assert.ok(third.err instanceof OpenAI.RateLimitError)
    assert.equal([third.status, third.message], [429, 'request limit exceeded: 2 requests per minute'])
    const retryAfter = third.err.headers?.get('retry-after') ?? ''
    assert.match(retryAfter, /^\d+$/)
    assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 60, `Retry-After: ${retryAfter}`)
    const models = await refusal(client.models.list())
    assert.is(models.status, 429, 'every route with auth counts')
    // Another key is not limited by it.
    assert.is((await gw.openai().chat.completions.create(hello())).object, 'chat.completion')
  },
)

one('admin API: a key made with the three fields shows them and keeps to them at once', async () => {
  const expires = new Date(Date.now() + 86_400_000).toISOString()
  const made = await admin('POST', '/keys', {
    id: 'limited',
    group: 'narrow',
    expires_at: expires,
    models: ['sim-chat-instruct'],
    requests_per_minute: 1,
  })
  assert.is(made.status, 201)
  const shown = made.body.key
  assert.equal(
    [shown.expires_at, shown.expired, shown.models, shown.requests_per_minute],
    [expires, false, ['sim-chat-instruct'], 1],
  )
  assert.equal((await admin('GET', '/keys/limited')).body, shown)
  const client = gw.openai(made.body.secret)
  assert.is((await client.chat.completions.create(hello())).object, 'chat.completion')
  assert.is((await refusal(client.chat.completions.create(hello()))).status, 429)
})

one('admin API: PATCH changes the fields and null clears them, applying to the next request', async () => {
  const made = await admin('POST', '/keys', { id: 'patched', group: 'demo' })
  const client = gw.openai(made.body.secret)
  const patched = await admin('PATCH', '/keys/patched', { models: ['sim-vision'], requests_per_minute: 100 })
  assert.equal([patched.body.models, patched.body.requests_per_minute], [['sim-vision'], 100])
  const ids: string[] = []
  for await (const m of client.models.list()) ids.push(m.id)
  assert.equal(ids, ['sim-vision'])
  const epoch = Date.now() + 3_600_000
  const expiring = await admin('PATCH', '/keys/patched', { expires_at: epoch })
  assert.equal(
    [expiring.body.expires_at, expiring.body.models],
    [new Date(epoch).toISOString(), ['sim-vision']],
    'epoch milliseconds; the other fields kept',
  )
  const cleared = await admin('PATCH', '/keys/patched', { models: null, requests_per_minute: null, expires_at: null })
  assert.equal([cleared.body.models, cleared.body.requests_per_minute, cleared.body.expires_at], [null, null, null])
  let count = 0
  for await (const _ of client.models.list()) count++
  assert.ok(count > 10, 'the whole catalog again')
})

one('admin API: an expiry set here ends the key when it comes', async () => {
  const made = await admin('POST', '/keys', { id: 'short-lived', group: 'demo', expires_at: Date.now() + 1500 })
  const client = gw.openai(made.body.secret)
  assert.is((await client.models.retrieve('sim-chat')).id, 'sim-chat')
  let last: { status?: number; message?: string } = {}
  for (let i = 0; i < 50 && last.status !== 401; i++) {
    await new Promise((r) => setTimeout(r, 100))
    last = await client.models.retrieve('sim-chat').then(
      () => ({ status: 200 }),
      (err: InstanceType<typeof OpenAI.APIError>) => ({
        status: err.status,
        message: (err.error as { message?: string }).message,
      }),
    )
  }
  assert.equal(last, { status: 401, message: 'api key expired' })
  assert.is((await admin('GET', '/keys/short-lived')).body.expired, true)
  // A Query project running as the expired key is refused too.
  assert.is((await admin('PUT', '/projects/expired-project', { key: 'short-lived' })).status, 201)
  const token = await admin('POST', '/projects/expired-project/tokens', { kind: 'service' })
  const probe = await fetch(`${gw.url}/query/v1/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token.body.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: 'expired-project', query: 'hello' }),
  })
  assert.equal(
    [probe.status, ((await probe.json()) as { error: { message: string } }).error.message],
    [403, 'the gateway key of project expired-project has expired'],
  )
})

one('admin API: bad values are 400 with a clear message, and change nothing', async () => {
  const before = (await admin('GET', '/keys')).body
  const cases: [string, string, unknown, string][] = [
    [
      'POST',
      '/keys',
      { group: 'narrow', models: ['sim-vision'] },
      'models: sim-vision is not permitted to group narrow',
    ],
    ['POST', '/keys', { group: 'demo', models: ['gpt-9'] }, 'models: gpt-9 is not a model or family of the catalog'],
    ['POST', '/keys', { group: 'demo', models: [] }, 'models'],
    [
      'POST',
      '/keys',
      { group: 'demo', expires_at: '2020-01-01T00:00:00Z' },
      'expires_at 2020-01-01T00:00:00Z is in the past',
    ],
    [
      'POST',
      '/keys',
      { group: 'demo', expires_at: 'next week' },
      'expires_at "next week" is not an ISO 8601 date-time',
    ],
    ['POST', '/keys', { group: 'demo', expires_at: 1_900_000_000 }, 'looks like epoch seconds'],
    ['POST', '/keys', { group: 'demo', expires_at: true }, 'expires_at'],
    ['POST', '/keys', { group: 'demo', requests_per_minute: 0 }, '/requests_per_minute: must be >= 1'],
    ['POST', '/keys', { group: 'demo', requests_per_minute: -5 }, '/requests_per_minute: must be >= 1'],
    ['POST', '/keys', { group: 'demo', requests_per_minute: 1.5 }, '/requests_per_minute: must be integer'],
    [
      'PATCH',
      '/keys/one-model',
      { group: 'narrow', models: ['sim-vision'] },
      'sim-vision is not permitted to group narrow',
    ],
    ['PATCH', '/keys/limited', { group: 'demo' }, 'ok'],
    ['PATCH', '/keys/one-model', { expires_at: '2001-02-03T04:05:06Z' }, 'is in the past'],
    ['PATCH', '/keys/one-model', { requests_per_minute: 0 }, 'requests_per_minute'],
  ]
  for (const [method, path, body, message] of cases) {
    const res = await admin(method, path, body)
    if (message === 'ok') {
      // A group the key's models are within: accepted (and put back).
      assert.is(res.status, 200)
      await admin('PATCH', path, { group: 'narrow' })
      continue
    }
    assert.is(res.status, 400, `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`)
    assert.ok(
      res.body.error.message.startsWith('invalid request: ') && res.body.error.message.includes(message),
      res.body.error.message,
    )
  }
  const after = (await admin('GET', '/keys')).body
  const comparable = (list: AdminBody) =>
    list.data.map((k) => ({ ...k, updated_at: k.id === 'limited' ? null : k.updated_at }))
  assert.equal(comparable(after), comparable(before), 'no key changed')
})

one.run()

// ——— three gateways, one Redis ———

const three = suiteNeeding(['redis'], 'e2e key limits: requests_per_minute across three gateways on one Redis')
let first: TestGateway | undefined
const replicas: Replica[] = []
const prefix = `${uniqueName('sluice-e2e-rpm')}:`

three.before(async () => {
  first = await startTestGateway({
    files: {
      'config/keys.yaml': keys,
      'config/server.yaml': serverWith({ stores: { redis_url: REDIS_URL, redis_prefix: prefix } }),
    },
  })
  for (let i = 0; i < 2; i++)
    replicas.push(
      await startReplica({
        configDir: first.configDir,
        pipelinesDir: first.pipelinesDir,
        env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_LOG_LEVEL: 'warn' },
      }),
    )
})
three.after(async () => {
  for (const r of replicas) await r.stop()
  await first?.close()
  const redis = new Redis(REDIS_URL)
  const stale = await redis.keys(`${prefix}*`)
  if (stale.length > 0) await redis.del(...stale)
  await redis.quit()
})

three('two requests through gateway A, the third through B is 429 with Retry-After; C refuses too', async () => {
  assert.ok(first!.generation().redis, 'the gateways count in Redis')
  const client = (url: string) => new OpenAI({ apiKey: 'sk-two', baseURL: `${url}/v1`, maxRetries: 0, timeout: 30_000 })
  const [a, b, c] = [first!.openai('sk-two'), client(replicas[0]!.url), client(replicas[1]!.url)]
  assert.is((await a.chat.completions.create(hello())).object, 'chat.completion')
  assert.is((await a.chat.completions.create(hello())).object, 'chat.completion')
  const third = await refusal(b.chat.completions.create(hello()))
  assert.ok(third.err instanceof OpenAI.RateLimitError)
  assert.equal([third.status, third.message], [429, 'request limit exceeded: 2 requests per minute'])
  assert.match(third.err.headers?.get('retry-after') ?? '', /^([1-9]|[1-5]\d|60)$/)
  assert.is((await refusal(c.models.list())).status, 429)
  // Keys without a limit are not held back by it.
  const demo = new OpenAI({ apiKey: TEST_KEY, baseURL: `${replicas[1]!.url}/v1`, maxRetries: 0 })
  assert.is((await demo.chat.completions.create(hello())).object, 'chat.completion')
})

three.run()
