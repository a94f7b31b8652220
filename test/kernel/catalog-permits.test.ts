import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { configDirWith, makeKernel, makeServedKernel } from '../../bin/testing/harness.js'
import { chooseAutoModel } from '../../domains/gateway/auto-model.js'

const test = suite('catalog: the one permission check (catalog.permits)')
const keys = `groups:
  demo: {}
  narrow: { models: [sim-chat-instruct] }
  family: { models: [sim-chat] }
  none: { models: [] }
keys:
  - { id: demo, group: demo, demo: true }
`
const kernel = makeKernel({ configDir: configDirWith({ 'keys.yaml': keys }) })
const { catalog } = kernel

test('`*` (the default) permits every name', () => {
  assert.ok(catalog.permits('demo', ['sim-vision']))
})

test('a listed name permits; any of the names a model was asked by counts', () => {
  assert.ok(catalog.permits('narrow', ['sim-chat-instruct']))
  assert.ok(
    catalog.permits('narrow', ['sim-instruct-8b', 'sim-chat-instruct']),
    'asked by its server name, answered by a listed id',
  )
  assert.not.ok(catalog.permits('narrow', ['sim-vision']))
  assert.ok(catalog.permits('family', ['sim-chat', 'sim-chat-thinking', 'sim-chat']), 'reached through a listed family')
  assert.not.ok(catalog.permits('family', ['sim-chat-thinking']), 'the member by its own name is not the family')
})

test('no group (an in-process call without a caller) is not restricted; an unknown group permits nothing', () => {
  assert.ok(catalog.permits(undefined, ['sim-vision']))
  assert.not.ok(catalog.permits('no-such-group', ['sim-vision']))
  assert.not.ok(catalog.permits('none', ['sim-vision']))
})

test('a group made through the admin API applies at once (groups are looked up live)', async () => {
  const served = await makeServedKernel({ configDir: configDirWith({ 'keys.yaml': keys }) })
  try {
    const k = served.kernel
    assert.not.ok(k.catalog.permits('late', ['sim-vision']))
    await k.keyAdmin.putGroup('late', { models: ['sim-vision'] })
    assert.ok(k.catalog.permits('late', ['sim-vision']))
    assert.not.ok(k.catalog.permits('late', ['sim-chat']))
  } finally {
    await served.close()
  }
})

test('auto chooses only among permitted models', () => {
  const m = chooseAutoModel(catalog, { group: 'narrow' }, Date.now())
  assert.is(m.id, 'sim-chat-instruct')
  assert.throws(() => chooseAutoModel(catalog, { group: 'none' }, Date.now()), /no model is available/)
})

test.run()
