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
  - { id: one, group: demo, models: [sim-vision], hash: "sha256:${'0'.repeat(64)}" }
  - { id: through, group: family, models: [sim-chat-thinking], hash: "sha256:${'1'.repeat(64)}" }
`
const kernel = makeKernel({ configDir: configDirWith({ 'keys.yaml': keys }) })
const { catalog } = kernel

test('`*` (the default) permits every name', () => {
  assert.ok(catalog.permits({ group: 'demo' }, ['sim-vision']))
})

test('a listed name permits; any of the names a model was asked by counts', () => {
  assert.ok(catalog.permits({ group: 'narrow' }, ['sim-chat-instruct']))
  assert.ok(
    catalog.permits({ group: 'narrow' }, ['sim-instruct-8b', 'sim-chat-instruct']),
    'asked by its server name, answered by a listed id',
  )
  assert.not.ok(catalog.permits({ group: 'narrow' }, ['sim-vision']))
  assert.ok(
    catalog.permits({ group: 'family' }, ['sim-chat', 'sim-chat-thinking', 'sim-chat']),
    'reached through a listed family',
  )
  assert.not.ok(
    catalog.permits({ group: 'family' }, ['sim-chat-thinking']),
    'the member by its own name is not the family',
  )
})

test('no group (an in-process call without a caller) is not restricted; an unknown group permits nothing', () => {
  assert.ok(catalog.permits(undefined, ['sim-vision']))
  assert.not.ok(catalog.permits({ group: 'no-such-group' }, ['sim-vision']))
  assert.not.ok(catalog.permits({ group: 'none' }, ['sim-vision']))
})

test('a group made through the admin API applies at once (groups are looked up live)', async () => {
  const served = await makeServedKernel({ configDir: configDirWith({ 'keys.yaml': keys }) })
  try {
    const k = served.kernel
    assert.not.ok(k.catalog.permits({ group: 'late' }, ['sim-vision']))
    await k.keyAdmin.putGroup('late', { models: ['sim-vision'] })
    assert.ok(k.catalog.permits({ group: 'late' }, ['sim-vision']))
    assert.not.ok(k.catalog.permits({ group: 'late' }, ['sim-chat']))
  } finally {
    await served.close()
  }
})

test('auto chooses only among permitted models', () => {
  const m = chooseAutoModel(catalog, { group: 'narrow' }, Date.now())
  assert.is(m.id, 'sim-chat-instruct')
  assert.throws(() => chooseAutoModel(catalog, { group: 'none' }, Date.now()), /no model is available/)
})

test("a key's own models narrow its group's: both must permit one of the names", () => {
  assert.ok(catalog.permits({ group: 'demo', keyId: 'one' }, ['sim-vision']))
  assert.not.ok(
    catalog.permits({ group: 'demo', keyId: 'one' }, ['sim-chat-instruct']),
    'the group permits it, the key not',
  )
  assert.ok(catalog.permits({ group: 'demo', keyId: 'demo' }, ['sim-chat-instruct']), 'a key without models: its group')
  // The group lists the family; the key one member of it: the member through the family only.
  assert.ok(catalog.permits({ group: 'family', keyId: 'through' }, ['sim-chat', 'sim-chat-thinking', 'sim-chat']))
  assert.not.ok(catalog.permits({ group: 'family', keyId: 'through' }, ['sim-chat', 'sim-chat-instruct', 'sim-chat']))
  assert.not.ok(catalog.permits({ group: 'family', keyId: 'through' }, ['sim-chat-thinking']))
})

test("auto chooses only among the key's own models", () => {
  const m = chooseAutoModel(catalog, { group: 'demo', keyId: 'one' }, Date.now())
  assert.is(m.id, 'sim-vision')
})

test("keys.yaml: a key's models must be catalog names its group may use, else the load fails naming them", () => {
  const load =
    (entry: string, groups = 'demo: {}\n  narrow: { models: [sim-chat-instruct] }\n  family: { models: [sim-chat] }') =>
    () =>
      makeKernel({
        configDir: configDirWith({
          'keys.yaml': `groups:\n  ${groups}\nkeys:\n  - { id: demo, group: demo, demo: true }\n  - ${entry}\n`,
        }),
      })
  const hash = `hash: "sha256:${'2'.repeat(64)}"`
  assert.throws(
    load(`{ id: k, group: narrow, models: [sim-vision], ${hash} }`),
    /key k: models: sim-vision is not permitted to group narrow/,
  )
  assert.throws(
    load(`{ id: k, group: demo, models: [no-such-model], ${hash} }`),
    /key k: models: no-such-model is not a model or family of the catalog/,
  )
  assert.throws(
    load(`{ id: k, group: narrow, models: ['*'], ${hash} }`),
    /key k: models: \* is more than group narrow may use/,
  )
  assert.throws(
    load(`{ id: k, group: narrow, models: [sim-chat], ${hash} }`),
    /sim-chat is not permitted to group narrow/,
  )
  assert.throws(load(`{ id: k, group: demo, models: [], ${hash} }`), /models/)
  // Within: listed, reached through a listed family, or anything under `*`.
  load(`{ id: k, group: narrow, models: [sim-chat-instruct], ${hash} }`)()
  load(`{ id: k, group: family, models: [sim-chat-thinking], ${hash} }`)()
  load(`{ id: k, group: demo, models: [sim-chat, sim-vision], ${hash} }`)()
})

test('keys.yaml: expires_at is an ISO 8601 date-time with its zone or epoch milliseconds; a past one loads (the key has expired)', () => {
  const load = (value: string) => () =>
    makeKernel({
      configDir: configDirWith({
        'keys.yaml': `groups: { demo: {} }\nkeys:\n  - { id: demo, group: demo, demo: true }\n  - { id: k, group: demo, expires_at: ${value}, hash: "sha256:${'3'.repeat(64)}" }\n`,
      }),
    })
  assert.is(load('"2030-01-31T12:00:00Z"')().keys.key('k')?.expiresAt, Date.parse('2030-01-31T12:00:00Z'))
  assert.is(load('1893456000000')().keys.key('k')?.expiresAt, 1893456000000)
  assert.is(load('"2001-01-01T00:00:00+02:00"')().keys.key('k')?.expiresAt, Date.parse('2000-12-31T22:00:00Z'))
  assert.throws(load('"next tuesday"'), /key k: expires_at "next tuesday" is not an ISO 8601 date-time/)
  assert.throws(load('"2030-01-31"'), /is not an ISO 8601 date-time with its zone/)
  assert.throws(load('"2027-02-30T00:00:00Z"'), /is not an ISO 8601 date-time/)
  assert.throws(load('1893456000'), /looks like epoch seconds/)
})

test.run()
