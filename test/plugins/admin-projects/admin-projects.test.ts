/** admin-projects alone: the harness, with the shared services opened as the gateway opens them. */
import * as assert from 'uvu/assert'
import adminProjects from '../../../plugins/admin-projects/index.js'
import { setupPlugin } from '../../../bin/testing/harness.js'
import { adminPluginSuite } from '../../support/admin-plugin.js'

const { test, served, act, json } = adminPluginSuite('admin-projects', adminProjects)

test('options: an unknown action stops the load', async () => {
  try {
    await setupPlugin(adminProjects, { action: 'rename' }, served.kernel)
    assert.unreachable('accepted')
  } catch (err) {
    assert.match(String(err), 'action')
  }
})

test('put creates (201) then replaces (200); the project is served at once', async () => {
  const made = await act('put', { params: { id: 'acme' }, body: { key: 'demo', defaults: { enable_search: true } } })
  assert.is(made.reply?.status, 201)
  assert.equal([json(made)!.id, json(made)!.key, json(made)!.source], ['acme', 'demo', 'store'])
  assert.is(made.ex.headers.get('cache-control'), 'no-store')
  const replaced = await act('put', { params: { id: 'acme' }, body: { key: 'demo' } })
  assert.is(replaced.reply?.status, 200)
  assert.is(served.kernel.domains.query.projects.project('acme')?.keyId, 'demo')
  const bad = await act('put', { params: { id: 'acme' }, body: { key: 'nope' } })
  assert.equal([bad.error?.status, bad.error?.message], [400, 'invalid request: /key: key nope does not exist'])
})

test('tokens: made with the secret once, listed without it, deleted', async () => {
  const made = await act('create-token', { params: { id: 'acme' }, body: { kind: 'developer' } })
  assert.is(made.reply?.status, 201)
  const secret = String(json(made)!.secret)
  const token = json(made)!.token as { id: string }
  assert.is(served.kernel.domains.query.projects.authenticate(secret)?.project.id, 'acme')
  const listed = json(await act('tokens', { params: { id: 'acme' } }))!
  assert.equal(
    (listed.data as { id: string }[]).map((t) => t.id),
    [token.id],
  )
  assert.not.ok(JSON.stringify(listed).includes(secret))
  const bad = await act('create-token', { params: { id: 'acme' }, body: { kind: 'root' } })
  assert.is(bad.error?.status, 400)
  await act('delete-token', { params: { id: 'acme', token: token.id } })
  assert.is(served.kernel.domains.query.projects.authenticate(secret), undefined)
  const gone = await act('delete', { params: { id: 'acme' } })
  assert.equal(json(gone), { id: 'acme', deleted: true })
  const missing = await act('get', { params: { id: 'acme' } })
  assert.equal([missing.error?.status, missing.error?.message], [404, 'project acme does not exist'])
})

test.run()
