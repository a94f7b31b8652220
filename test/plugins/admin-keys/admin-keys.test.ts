import * as assert from 'uvu/assert'
import adminKeys from '../../../plugins/admin-keys/index.js'
import { setupPlugin, TEST_KEY } from '../../../bin/testing/harness.js'
import { adminPluginSuite } from '../../support/admin-plugin.js'

const { test, served, act, json } = adminPluginSuite('admin-keys', adminKeys)

test('create: 201 with the key and its secret, shown once; the secret works at once', async () => {
  const run = await act('create', {
    body: { id: 'alice', group: 'demo', budget: { amount: 5 }, tokens_per_minute: 1000 },
  })
  assert.is(run.reply?.status, 201)
  const body = json(run)!
  const key = body.key as Record<string, unknown>
  assert.equal(
    [key.id, key.group, key.enabled, key.legacy, key.budget, key.tokens_per_minute, key.source],
    ['alice', 'demo', true, false, { amount: 5, term: 'month' }, 1000, 'store'],
  )
  assert.match(String(body.secret), /^sk-sluice-/)
  assert.is(served.kernel.keys.lookup(String(body.secret))?.id, 'alice')
  assert.is(run.ex.headers.get('cache-control'), 'no-store')
})

test('list and get show keys without secrets or digests', async () => {
  const list = json(await act('list'))!
  const ids = (list.data as { id: string }[]).map((k) => k.id)
  assert.ok(ids.includes('alice') && ids.includes('demo'))
  assert.not.ok(JSON.stringify(list).includes('sk-'), 'no secret')
  assert.not.ok(/[0-9a-f]{64}/.test(JSON.stringify(list)), 'no digest')
  assert.is(json(await act('get', { params: { id: 'alice' } }))!.id, 'alice')
  const missing = await act('get', { params: { id: 'ghost' } })
  assert.equal([missing.error?.status, missing.error?.message], [404, 'key ghost does not exist'])
})

test('update: switch off, and the next lookup sees it', async () => {
  const run = await act('update', { params: { id: 'demo' }, body: { enabled: false } })
  assert.is(json(run)!.enabled, false)
  assert.is(served.kernel.keys.lookup(TEST_KEY)?.enabled, false)
  await act('update', { params: { id: 'demo' }, body: { enabled: true } })
  assert.is(served.kernel.keys.lookup(TEST_KEY)?.enabled, true)
})

test('rotate: a new secret in the answer; the old one stops', async () => {
  const made = json(await act('create', { body: { group: 'demo', legacy: true } }))!
  const id = (made.key as { id: string }).id
  assert.match(id, /^key-[0-9a-f]{12}$/, 'an id is made when none is given')
  const rotated = json(await act('rotate', { params: { id } }))!
  assert.is(served.kernel.keys.lookup(String(made.secret)), undefined)
  assert.equal(
    [served.kernel.keys.lookup(String(rotated.secret))?.id, (rotated.key as { legacy: boolean }).legacy],
    [id, false],
  )
})

test('delete', async () => {
  const made = json(await act('create', { body: { id: 'gone', group: 'demo' } }))!
  assert.equal(json(await act('delete', { params: { id: 'gone' } })), { id: 'gone', deleted: true })
  assert.is(served.kernel.keys.lookup(String(made.secret)), undefined)
})

test('bad bodies: 400 with the reason, and nothing changes', async () => {
  const before = served.kernel.keys.keys().length
  for (const [body, reason] of [
    [{}, /must have required property 'group'/],
    [{ group: 'demo', colour: 'red' }, /unknown property 'colour'/],
    [{ group: 'demo', budget: { amount: -1 } }, /budget\/amount: must be >= 0/],
    [{ group: 'demo', id: 'has space' }, /\/id: must match pattern/],
    [{ group: 'nowhere' }, /group nowhere does not exist/],
  ] as const) {
    const run = await act('create', { body })
    assert.is(run.error?.status, 400, JSON.stringify(body))
    assert.match(run.error!.message, reason)
  }
  const empty = await act('update', { params: { id: 'alice' }, body: {} })
  assert.is(empty.error?.status, 400)
  assert.is(served.kernel.keys.keys().length, before)
  assert.is((await act('create', { body: { id: 'alice', group: 'demo' } })).error?.status, 409)
})

test('options are validated like the loader does', async () => {
  try {
    await setupPlugin(adminKeys, { action: 'explode' }, served.kernel)
    assert.unreachable()
  } catch (err) {
    assert.match(String(err), /bad options/)
  }
})

test.run()
