import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import portalAuth from '../../../plugins/portal-auth/index.js'
import { loadError, makeKernel, runPlugin, setupPlugin, TEST_KEY } from '../../../bin/testing/harness.js'
import { formatHash, hashSecret } from '../../../protocols/credentials/secrets.js'

const test = suite('plugin portal-auth')
let clock = Date.parse('2026-05-01T08:00:00Z')
const kernel = makeKernel({ adminKeyHash: formatHash(hashSecret('sk-admin')), now: () => clock })

async function signIn(options: object = {}) {
  const run = await runPlugin(
    portalAuth,
    { action: 'sign-in', ...options },
    { kernel, method: 'POST', body: { admin_key: 'sk-admin' } },
  )
  const setCookie = run.ex.headers.get('set-cookie') ?? ''
  return {
    run,
    cookie: setCookie.split(';')[0]!,
    setCookie,
    csrf: (run.reply as { body: { csrf_token: string } }).body.csrf_token,
  }
}

test('sign-in sets the session cookie and answers its CSRF token; the key is not echoed', async () => {
  const { run, setCookie, csrf } = await signIn()
  assert.match(setCookie, /^sluice_portal=[\w-]{43}; Path=\/portal; HttpOnly; SameSite=Strict; Max-Age=28800$/)
  assert.match(csrf, /^[\w-]{43}$/)
  assert.is(run.ex.headers.get('cache-control'), 'no-store')
  assert.not.ok(JSON.stringify(run.reply).includes('sk-admin'))
})

test('secure_cookie adds Secure; ttl_minutes sets Max-Age', async () => {
  const { setCookie } = await signIn({ secure_cookie: true, ttl_minutes: 30 })
  assert.match(setCookie, /; Max-Age=1800; Secure$/)
})

test('sign-in refuses a tenant key, a wrong key and a missing key, and sets no cookie', async () => {
  for (const [body, status, message] of [
    [{ admin_key: TEST_KEY }, 401, 'invalid admin key'],
    [{ admin_key: 'sk-admi' }, 401, 'invalid admin key'],
    [{}, 400, 'invalid request: admin_key is required'],
  ] as const) {
    const run = await runPlugin(portalAuth, { action: 'sign-in' }, { kernel, method: 'POST', body })
    assert.equal([run.error?.status, run.error?.message], [status, message])
    assert.not.ok(run.ex.headers.has('set-cookie'))
  }
})

test('no admin key configured: sign-in is closed (403)', async () => {
  const run = await runPlugin(
    portalAuth,
    { action: 'sign-in' },
    { kernel: makeKernel(), method: 'POST', body: { admin_key: 'x' } },
  )
  assert.equal([run.error?.status, run.error?.message], [403, 'admin api is not configured'])
})

test('the session check: GET passes with the cookie alone and fills the admin slot', async () => {
  const { cookie } = await signIn()
  const run = await runPlugin(portalAuth, {}, { kernel, method: 'GET', headers: { cookie: `theme=dark; ${cookie}` } })
  assert.ok(run.nextCalled)
  assert.equal(run.ex.state.admin, { authenticated: true })
})

test('a change needs the CSRF token of this very session', async () => {
  const a = await signIn()
  const b = await signIn()
  const attempts: Record<string, string>[] = [
    { cookie: a.cookie },
    { cookie: a.cookie, 'x-csrf-token': b.csrf },
    { cookie: a.cookie, 'x-csrf-token': a.csrf.slice(1) },
  ]
  for (const headers of attempts) {
    const run = await runPlugin(portalAuth, {}, { kernel, method: 'POST', headers })
    assert.equal([run.error?.status, run.nextCalled], [403, false])
    assert.match(run.error!.message, /missing or invalid CSRF token/)
  }
  assert.ok(
    (
      await runPlugin(
        portalAuth,
        {},
        { kernel, method: 'DELETE', headers: { cookie: a.cookie, 'x-csrf-token': a.csrf } },
      )
    ).nextCalled,
  )
})

test('no cookie, a forged one, or an expired one: 401', async () => {
  const { cookie } = await signIn({ ttl_minutes: 1 })
  const attempts: Record<string, string>[] = [
    {},
    { cookie: 'sluice_portal=forged' },
    { authorization: 'Bearer sk-admin' },
  ]
  for (const headers of attempts) {
    const run = await runPlugin(portalAuth, {}, { kernel, headers })
    assert.equal([run.error?.status, run.error?.message], [401, 'not signed in to the portal'])
  }
  clock += 60_000
  const expired = await runPlugin(portalAuth, {}, { kernel, headers: { cookie } })
  assert.is(expired.error?.status, 401)
})

test('sign-out ends the session and clears the cookie', async () => {
  const { cookie, csrf } = await signIn()
  const out = await runPlugin(
    portalAuth,
    { action: 'sign-out' },
    { kernel, method: 'DELETE', headers: { cookie, 'x-csrf-token': csrf } },
  )
  assert.match(out.ex.headers.get('set-cookie') ?? '', /^sluice_portal=; .*Max-Age=0/)
  assert.is((await runPlugin(portalAuth, {}, { kernel, headers: { cookie } })).error?.status, 401)
})

test('sessions are bounded: past max_sessions the oldest ends', async () => {
  const small = makeKernel({ adminKeyHash: formatHash(hashSecret('sk-admin')) })
  const open = async () =>
    (
      (
        await runPlugin(
          portalAuth,
          { action: 'sign-in', max_sessions: 2 },
          { kernel: small, method: 'POST', body: { admin_key: 'sk-admin' } },
        )
      ).ex.headers.get('set-cookie') ?? ''
    ).split(';')[0]!
  const first = await open()
  const second = await open()
  const third = await open()
  const live = async (cookie: string) =>
    (await runPlugin(portalAuth, {}, { kernel: small, method: 'GET', headers: { cookie } })).error?.message ?? 'live'
  assert.equal(
    [await live(first), await live(second), await live(third)],
    ['not signed in to the portal', 'live', 'live'],
  )
})

test('bad options stop the load', async () => {
  assert.match(await loadError(() => setupPlugin(portalAuth, { action: 'open-sesame' })), /bad options/)
  assert.match(await loadError(() => setupPlugin(portalAuth, { ttl_minutes: 0 })), /bad options/)
})

test.run()
