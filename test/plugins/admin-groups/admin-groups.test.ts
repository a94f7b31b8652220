import * as assert from 'uvu/assert'
import adminGroups from '../../../plugins/admin-groups/index.js'
import { adminPluginSuite } from '../../support/admin-plugin.js'

const { test, served, act, json: body } = adminPluginSuite('admin-groups', adminGroups)

test('put: a group with permitted models, budgets and weight; defaults filled', async () => {
  const run = await act('put', {
    params: { id: 'research' },
    body: { models: ['sim-chat'], weight: 3, budget: { amount: 100, term: 'week' }, tokens_per_minute: 20000 },
  })
  assert.equal(body(run), {
    id: 'research',
    models: ['sim-chat'],
    weight: 3,
    budget: { amount: 100, term: 'week' },
    tokens_per_minute: 20000,
    source: 'store',
  })
  assert.equal(body(await act('put', { params: { id: 'small' }, body: {} })), {
    id: 'small',
    models: ['*'],
    weight: 1,
    budget: null,
    tokens_per_minute: null,
    source: 'store',
  })
  assert.is(served.kernel.keys.group('research')?.weight, 3)
})

test('list and get, the keys.yaml seed included', async () => {
  const ids = (body(await act('list'))!.data as { id: string; source: string }[]).map((g) => `${g.id}:${g.source}`)
  assert.equal(ids, ['demo:config', 'research:store', 'small:store'])
  assert.is(body(await act('get', { params: { id: 'demo' } }))!.source, 'config')
  assert.is((await act('get', { params: { id: 'nope' } })).error?.status, 404)
})

test('bad groups: 400, nothing stored', async () => {
  for (const bad of [{ weight: 0 }, { models: 'all' }, { budget: { term: 'year' } }, { extra: true }]) {
    const run = await act('put', { params: { id: 'bad' }, body: bad })
    assert.is(run.error?.status, 400, JSON.stringify(bad))
    assert.match(run.error!.message, /^invalid request: /)
  }
  assert.is((await act('put', { params: { id: 'bad' }, body: [1] })).error?.status, 400)
  assert.is(served.kernel.keys.group('bad'), undefined)
})

test('delete: refused while keys are in the group; done when empty', async () => {
  const busy = await act('delete', { params: { id: 'demo' } })
  assert.equal([busy.error?.status, busy.error?.message], [409, 'group demo still has keys: demo'])
  assert.equal(body(await act('delete', { params: { id: 'small' } })), { id: 'small', deleted: true })
  assert.is(served.kernel.keys.group('small'), undefined)
})

test.run()
