/**
 * The portal's own API over HTTP, without a browser: sign-in trades the admin key for an
 * HttpOnly SameSite=Strict cookie (never the key again), a wrong key is refused, every
 * state-changing call needs the session's CSRF token, signing out ends the session, and the
 * page and its assets come with their content types and caching headers.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'

const test = suite('e2e portal api')
let gw: TestGateway
const ADMIN = 'sk-admin-portal'
/** The gateway's clock, moved by the expiry test. */
let skew = 0

test.before(async () => {
  gw = await startTestGateway({
    env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN },
    now: () => Date.now() + skew,
  })
})
test.after(async () => gw.close())

async function signIn(
  key = ADMIN,
): Promise<{ status: number; cookie: string; setCookie: string; body: Record<string, unknown> }> {
  const res = await fetch(`${gw.url}/portal/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ admin_key: key }),
  })
  const setCookie = res.headers.get('set-cookie') ?? ''
  return {
    status: res.status,
    cookie: setCookie.split(';')[0]!,
    setCookie,
    body: (await res.json()) as Record<string, unknown>,
  }
}

const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
  fetch(`${gw.url}/portal/api${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

test('a wrong admin key is refused and opens no session', async () => {
  const wrong = await signIn('sk-not-the-admin-key')
  assert.is(wrong.status, 401)
  assert.equal(wrong.body, { error: { message: 'invalid admin key', type: 'gateway_error' } })
  assert.is(wrong.setCookie, '')
  const tenant = await signIn(TEST_KEY)
  assert.is(tenant.status, 401, 'a tenant key is not the admin key')
})

test('without a session the API answers 401, with or without the admin key as bearer', async () => {
  const res = await call('GET', '/keys', {})
  assert.is(res.status, 401)
  assert.equal(await res.json(), { error: { message: 'not signed in to the portal', type: 'gateway_error' } })
  assert.is(
    (await call('GET', '/keys', { authorization: `Bearer ${ADMIN}` })).status,
    401,
    'the portal takes only its session',
  )
  assert.is((await call('GET', '/keys', { cookie: 'sluice_portal=forged' })).status, 401)
})

test('sign-in: an HttpOnly, SameSite=Strict cookie on /portal and a CSRF token; the key is not echoed', async () => {
  const s = await signIn()
  assert.is(s.status, 200)
  assert.match(
    s.setCookie,
    /^sluice_portal=[A-Za-z0-9_-]{43}; Path=\/portal; HttpOnly; SameSite=Strict; Max-Age=28800$/,
  )
  assert.type(s.body.csrf_token, 'string')
  assert.not.ok(JSON.stringify(s.body).includes(ADMIN))
  const status = await call('GET', '/session', { cookie: s.cookie })
  assert.is(status.status, 200)
  assert.is(((await status.json()) as { csrf_token: string }).csrf_token, s.body.csrf_token)
  const keys = await call('GET', '/keys', { cookie: s.cookie })
  assert.is(keys.status, 200)
  assert.is(keys.headers.get('cache-control'), 'no-store')
  assert.ok(((await keys.json()) as { data: { id: string }[] }).data.some((k) => k.id === 'demo'))
})

test("a state-changing request without the CSRF token, or with another session's, is refused with 403 and changes nothing", async () => {
  const s = await signIn()
  const other = await signIn()
  const message = 'missing or invalid CSRF token: send the x-csrf-token header returned at sign-in'
  const attempts: Record<string, string>[] = [
    { cookie: s.cookie },
    { cookie: s.cookie, 'x-csrf-token': String(other.body.csrf_token) },
    { cookie: s.cookie, 'x-csrf-token': '' },
  ]
  for (const headers of attempts) {
    const res = await call('PATCH', '/keys/demo', headers, { enabled: false })
    assert.is(res.status, 403)
    assert.equal(await res.json(), { error: { message, type: 'gateway_error' } })
  }
  const made = await call('POST', '/keys', { cookie: s.cookie }, { id: 'csrf-probe', group: 'default' })
  assert.is(made.status, 403)
  const keys = (await (await call('GET', '/keys', { cookie: s.cookie })).json()) as {
    data: { id: string; enabled: boolean }[]
  }
  assert.is(keys.data.find((k) => k.id === 'demo')!.enabled, true, 'the refused switch changed nothing')
  assert.not.ok(keys.data.some((k) => k.id === 'csrf-probe'))
  const ok = await call(
    'PATCH',
    '/keys/demo',
    { cookie: s.cookie, 'x-csrf-token': String(s.body.csrf_token) },
    { enabled: true },
  )
  assert.is(ok.status, 200)
})

test('sign-out ends the session: the cookie no longer opens anything', async () => {
  const s = await signIn()
  const headers = { cookie: s.cookie, 'x-csrf-token': String(s.body.csrf_token) }
  assert.is((await call('DELETE', '/session', { cookie: s.cookie })).status, 403, 'sign-out needs the token too')
  const out = await call('DELETE', '/session', headers)
  assert.is(out.status, 200)
  assert.match(
    out.headers.get('set-cookie') ?? '',
    /^sluice_portal=; Path=\/portal; HttpOnly; SameSite=Strict; Max-Age=0/,
  )
  assert.is((await call('GET', '/keys', headers)).status, 401)
})

test('a session ends 8 hours after sign-in (absolute, not sliding)', async () => {
  const s = await signIn()
  skew = 8 * 3_600_000 - 60_000
  assert.is((await call('GET', '/keys', { cookie: s.cookie })).status, 200, 'a minute before the end')
  skew = 8 * 3_600_000 + 1
  const res = await call('GET', '/keys', { cookie: s.cookie })
  skew = 0
  assert.is(res.status, 401)
  assert.is(
    (await call('GET', '/keys', { cookie: s.cookie })).status,
    401,
    'an expired session is gone, also when the clock is back',
  )
})

test('a hot reload keeps operators signed in (sessions belong to the gateway, not to a pipeline set)', async () => {
  const s = await signIn()
  assert.ok(await gw.reload())
  assert.is((await call('GET', '/keys', { cookie: s.cookie })).status, 200)
  assert.is(
    (
      await call(
        'PATCH',
        '/keys/demo',
        { cookie: s.cookie, 'x-csrf-token': String(s.body.csrf_token) },
        { enabled: true },
      )
    ).status,
    200,
  )
})

test('the models route: the catalog with retirement and the live queue per backend', async () => {
  const s = await signIn()
  const res = await call('GET', '/models', { cookie: s.cookie })
  const body = (await res.json()) as {
    models: { id: string; status: string; capabilities: string[] }[]
    backends: { name: string; capacity: number; waiting: number; running: number }[]
  }
  assert.ok(body.models.some((m) => m.id === 'sim-chat-instruct'))
  assert.ok(body.backends.length > 0)
  for (const b of body.backends) assert.ok(b.capacity >= 1 && b.waiting === 0 && b.running === 0, `${b.name} is idle`)
})

test('the page and its assets: content types, caching headers and a strict CSP', async () => {
  const page = await fetch(`${gw.url}/portal/`)
  assert.is(page.status, 200)
  assert.is(page.headers.get('content-type'), 'text/html; charset=utf-8')
  assert.is(page.headers.get('cache-control'), 'no-cache')
  assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/)
  const html = await page.text()
  const script = /src="(\/portal\/assets\/app-[A-Z0-9]{8}\.js)"/.exec(html)?.[1]
  const style = /href="(\/portal\/assets\/style-[A-Z0-9]{8}\.css)"/.exec(html)?.[1]
  assert.ok(script && style, 'the page names its hashed assets')
  const js = await fetch(`${gw.url}${script}`)
  assert.is(js.headers.get('content-type'), 'text/javascript; charset=utf-8')
  assert.is(js.headers.get('cache-control'), 'public, max-age=31536000, immutable')
  const css = await fetch(`${gw.url}${style}`)
  assert.is(css.headers.get('content-type'), 'text/css; charset=utf-8')
  assert.is((await fetch(`${gw.url}/portal/assets/nope.js`)).status, 404)
  assert.is((await fetch(`${gw.url}/portal/assets/..%2Fpackage.json`)).status, 404)
})

test.run()
