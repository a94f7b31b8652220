/**
 * The key store with the admin API's changes, run against both stores (SQLite, PostgreSQL):
 * keys made, switched off, rotated and deleted apply to the very next lookup; seed keys
 * (keys.yaml) are overridden by the store; another replica sees changes within its refresh.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import os from 'node:os'
import type { Store } from '../../kernel/services/stores/store.js'
import { StoredKeys } from '../../kernel/services/keys/stored-keys.js'
import { createKeyStore, type LayeredKeyStore } from '../../kernel/services/keys/keys.js'
import { formatHash, hashSecret } from '../../protocols/credentials/secrets.js'
import { GatewayError } from '../../kernel/contract/errors.js'
import { createLogger } from '../../kernel/contract/log.js'
import type { KeysFile } from '../../schemas/keys.schema.js'
import { postgresTestStore, sqliteTestStore } from '../support/test-stores.js'
import { makeKernel } from '../../bin/testing/harness.js'
import { suiteNeeding } from '../support/needs-server.js'
import type { Server } from '../support/services.js'

const log = createLogger({ level: 'error', sink: { write: () => undefined } })
/** The embedded default's catalog, against which keys' own models are checked. */
const { catalog } = makeKernel()
const NOW = Date.parse('2026-12-01T00:00:00Z')
const seed: KeysFile = {
  groups: {
    research: { models: ['*'], weight: 1, forward_headers: false },
    ops: { models: ['sim-chat'], weight: 2, tokens_per_minute: 1000, forward_headers: false },
  },
  keys: [
    {
      id: 'seeded',
      group: 'research',
      hash: formatHash(hashSecret('sk-seeded')),
      enabled: true,
      legacy: false,
      demo: false,
    },
    {
      id: 'old',
      group: 'ops',
      hash: formatHash(hashSecret('sk-old')),
      enabled: true,
      legacy: true,
      demo: false,
      budget: { amount: 5, term: 'week' },
    },
  ],
}

async function status(p: Promise<unknown>): Promise<number | 'ok'> {
  try {
    await p
    return 'ok'
  } catch (err) {
    return err instanceof GatewayError ? err.status : -1
  }
}

/** Polls `read` until it returns `want` (at most a second); returns the last value read. */
async function eventually<T>(read: () => T, want: T): Promise<T> {
  let value = read()
  for (let i = 0; i < 40 && value !== want; i++) {
    await new Promise((r) => setTimeout(r, 25))
    value = read()
  }
  return value
}

function keysContract(
  label: string,
  needs: readonly Server[],
  open: () => Promise<{ store: Store; cleanup(): Promise<void> }>,
): void {
  const test = suiteNeeding(needs, `key store with admin changes: ${label}`)
  let opened: { store: Store; cleanup(): Promise<void> } | undefined
  let stored: StoredKeys
  let keys: LayeredKeyStore
  test.before(async () => {
    opened = await open()
    stored = await StoredKeys.open(opened.store.keys, { refreshMs: 50, log })
    keys = createKeyStore(seed, { dataDir: os.tmpdir(), env: {}, log, stored, catalog, now: () => NOW })
  })
  test.after(async () => {
    stored?.close()
    await opened?.store.close()
    await opened?.cleanup()
  })
  const it = (name: string, fn: () => Promise<void>) => test(name, fn)

  it('seed keys answer to their secrets; a key made here answers to the secret shown once', async () => {
    assert.is(keys.lookup('sk-seeded')?.id, 'seeded')
    const made = await keys.createKey({
      id: 'alice',
      group: 'research',
      budget: { amount: 3, term: 'day' },
      tokensPerMinute: 500,
      expiresAt: '2027-01-31T12:00:00+01:00',
      models: ['sim-vision', 'sim-chat'],
      requestsPerMinute: 60,
    })
    assert.match(made.secret, /^sk-sluice-/)
    const found = keys.lookup(made.secret)
    assert.equal(
      { ...found, createdAt: undefined, updatedAt: undefined },
      {
        id: 'alice',
        group: 'research',
        enabled: true,
        legacy: false,
        budget: { amount: 3, term: 'day' },
        tokensPerMinute: 500,
        expiresAt: Date.parse('2027-01-31T11:00:00Z'),
        models: ['sim-vision', 'sim-chat'],
        requestsPerMinute: 60,
        source: 'store',
        createdAt: undefined,
        updatedAt: undefined,
      },
    )
    assert.equal(
      keys.keys().map((k) => `${k.id}:${k.source}`),
      ['alice:store', 'old:config', 'seeded:config'],
    )
    const snap = await opened!.store.keys.load()
    assert.not.ok(JSON.stringify(snap).includes(made.secret), 'the store keeps only the digest')
  })

  it('switched off: the next lookup sees it; switched on again', async () => {
    const made = await keys.createKey({ id: 'bob', group: 'research' })
    await keys.updateKey('bob', { enabled: false })
    assert.is(keys.lookup(made.secret)?.enabled, false)
    await keys.updateKey('bob', { enabled: true, group: 'ops', budget: { amount: 1, term: 'month' } })
    const bob = keys.lookup(made.secret)!
    assert.equal([bob.enabled, bob.group, bob.budget], [true, 'ops', { amount: 1, term: 'month' }])
    await keys.updateKey('bob', { budget: null, tokensPerMinute: null })
    assert.is(keys.key('bob')!.budget, undefined, 'null clears a budget')
  })

  it("expiry, own models and request limit: changed, kept by other changes, cleared by null; the store's row holds them", async () => {
    const made = await keys.createKey({ id: 'erin', group: 'research', expiresAt: NOW + 3_600_000 })
    assert.is(keys.lookup(made.secret)?.expiresAt, NOW + 3_600_000, 'epoch milliseconds taken as they are')
    await keys.updateKey('erin', { models: ['sim-chat-instruct'], requestsPerMinute: 2 })
    await keys.updateKey('erin', { enabled: false })
    let erin = keys.key('erin')!
    assert.equal(
      [erin.expiresAt, erin.models, erin.requestsPerMinute, erin.enabled],
      [NOW + 3_600_000, ['sim-chat-instruct'], 2, false],
      'a change of one field keeps the others',
    )
    const row = (await opened!.store.keys.load()).keys.find((k) => k.id === 'erin')!
    assert.equal([row.expiresAt, row.models, row.requestsPerMinute], [NOW + 3_600_000, ['sim-chat-instruct'], 2])
    await keys.updateKey('erin', { expiresAt: null, models: null, requestsPerMinute: null })
    erin = keys.key('erin')!
    assert.equal([erin.expiresAt, erin.models, erin.requestsPerMinute], [undefined, undefined, undefined])
    // A seed key changed here keeps its own fields when copied.
    await keys.updateKey('old', { requestsPerMinute: 5 })
    assert.equal([keys.key('old')!.requestsPerMinute, keys.key('old')!.legacy], [5, true])
  })

  it('bad expiry, models or limit: 400 naming the field, and nothing changes', async () => {
    await keys.createKey({ id: 'frank', group: 'ops', models: ['sim-chat'] })
    const before = (await opened!.store.keys.load()).version
    const message = async (p: Promise<unknown>) => {
      try {
        await p
        return 'ok'
      } catch (err) {
        return err instanceof GatewayError ? `${err.status} ${err.message}` : String(err)
      }
    }
    assert.is(
      await message(keys.createKey({ group: 'research', expiresAt: NOW - 1000 })),
      '400 invalid request: expires_at 2026-11-30T23:59:59.000Z is in the past',
    )
    assert.is(
      await message(keys.createKey({ group: 'research', expiresAt: 'tomorrow' })),
      '400 invalid request: expires_at "tomorrow" is not an ISO 8601 date-time with its zone (2027-01-31T00:00:00Z) or epoch milliseconds',
    )
    assert.is(
      await message(keys.createKey({ group: 'research', expiresAt: 1893456000 })),
      '400 invalid request: expires_at 1893456000 looks like epoch seconds: give epoch milliseconds or an ISO 8601 date-time',
    )
    assert.is(
      await message(keys.createKey({ group: 'ops', models: ['sim-vision'] })),
      '400 invalid request: models: sim-vision is not permitted to group ops',
    )
    assert.is(
      await message(keys.createKey({ group: 'research', models: ['gpt-9'] })),
      '400 invalid request: models: gpt-9 is not a model or family of the catalog',
    )
    assert.is(
      await message(keys.updateKey('frank', { expiresAt: '2020-01-01T00:00:00Z' })),
      '400 invalid request: expires_at 2020-01-01T00:00:00Z is in the past',
    )
    assert.is(
      await message(keys.updateKey('alice', { group: 'ops' })),
      '400 invalid request: models: sim-vision is not permitted to group ops',
      'moving a key to a group that may not use its models',
    )
    assert.is(
      await message(keys.updateKey('frank', { models: ['*'] })),
      '400 invalid request: models: * is more than group ops may use',
    )
    // A member reached through the group's family is within it.
    assert.is(await message(keys.updateKey('frank', { models: ['sim-chat-thinking'] })), 'ok')
    await keys.updateKey('frank', { models: ['sim-chat'] })
    assert.is((await opened!.store.keys.load()).version, before + 2, 'only the two good changes were written')
    assert.equal(keys.key('alice')!.group, 'research')
  })

  it('a seed key switched off here is overridden by the store', async () => {
    await keys.updateKey('seeded', { enabled: false })
    const k = keys.lookup('sk-seeded')!
    assert.equal([k.id, k.enabled, k.source], ['seeded', false, 'store'])
  })

  it('rotation: a new secret, the old one stops, and a legacy key moves to the current gateway', async () => {
    assert.is(keys.lookup('sk-old')?.legacy, true)
    const rotated = await keys.rotateKey('old')
    assert.is(keys.lookup('sk-old'), undefined, 'the old secret no longer works')
    const k = keys.lookup(rotated.secret)!
    assert.equal([k.id, k.legacy, k.group], ['old', false, 'ops'])
    assert.equal(k.budget, { amount: 5, term: 'week' }, 'the seed key was copied whole')
  })

  it('deleted keys are gone, and their ids are not reused', async () => {
    const made = await keys.createKey({ id: 'carol', group: 'research' })
    await keys.deleteKey('carol')
    assert.is(keys.lookup(made.secret), undefined)
    assert.is(keys.key('carol'), undefined)
    assert.is(await status(keys.createKey({ id: 'carol', group: 'research' })), 409)
    assert.is(await status(keys.deleteKey('carol')), 404)
  })

  it('bad changes are clear errors and change nothing', async () => {
    const before = (await opened!.store.keys.load()).version
    assert.is(await status(keys.createKey({ group: 'nope' })), 400)
    assert.is(await status(keys.createKey({ id: 'has space', group: 'research' })), 400)
    assert.is(await status(keys.createKey({ id: 'alice', group: 'research' })), 409)
    assert.is(await status(keys.updateKey('ghost', { enabled: false })), 404)
    assert.is(await status(keys.updateKey('alice', { group: 'nope' })), 400)
    assert.is(await status(keys.rotateKey('ghost')), 404)
    assert.is(await status(keys.putGroup('g', { weight: -1 })), 400)
    assert.is(await status(keys.putGroup('g', { colour: 'red' })), 400)
    assert.is(await status(keys.deleteGroup('research')), 409, 'the group still has keys')
    assert.is(await status(keys.deleteGroup('ghost')), 404)
    assert.is((await opened!.store.keys.load()).version, before)
  })

  it('names of Object.prototype are no group (the fuzzer found a 500 on DELETE /admin/groups/constructor)', async () => {
    const before = (await opened!.store.keys.load()).version
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      assert.is(keys.group(name), undefined, name)
      assert.is(await status(keys.deleteGroup(name)), 404, name)
      assert.is(await status(keys.createKey({ group: name })), 400, name)
      assert.is(await status(keys.updateKey('alice', { group: name })), 400, name)
    }
    assert.is((await opened!.store.keys.load()).version, before)
  })

  it('groups: put (defaults filled), override a seed group, delete an empty one', async () => {
    const g = await keys.putGroup('tenant-x', { models: ['sim-chat'], budget: { amount: 10 } })
    assert.equal(g.config, {
      models: ['sim-chat'],
      weight: 1,
      budget: { amount: 10, term: 'month' },
      forward_headers: false,
    })
    assert.equal(keys.group('tenant-x'), g.config)
    await keys.putGroup('ops', { weight: 5 })
    assert.is(keys.group('ops')!.weight, 5)
    assert.is(keys.groups().find((x) => x.id === 'ops')!.source, 'store')
    await keys.deleteGroup('tenant-x')
    assert.is(keys.group('tenant-x'), undefined)
  })

  it('another replica on the same store sees a change within its refresh', async () => {
    const replicaCache = await StoredKeys.open(opened!.store.keys, { refreshMs: 50, log })
    const replica = createKeyStore(seed, { dataDir: os.tmpdir(), env: {}, log, stored: replicaCache })
    try {
      const made = await keys.createKey({ id: 'dave', group: 'research' })
      assert.is(
        await eventually(() => replica.lookup(made.secret)?.enabled, true),
        true,
        'the other replica saw the new key',
      )
      await keys.updateKey('dave', { enabled: false })
      const seen = await eventually(() => replica.lookup(made.secret)?.enabled, false)
      assert.is(seen, false, 'the other replica saw the switch')
    } finally {
      replicaCache.close()
      replica.close()
    }
  })

  test.run()
}

keysContract('sqlite', [], async () => sqliteTestStore())

keysContract('postgres', ['postgres'], postgresTestStore)

const admin = suite('admin key')
admin('the admin key comes from SLUICE_ADMIN_KEY or admin.key_hash, compared by digest', () => {
  const fromEnv = createKeyStore(seed, { dataDir: os.tmpdir(), env: { SLUICE_ADMIN_KEY: 'sk-admin' }, log })
  assert.ok(fromEnv.adminConfigured)
  assert.ok(fromEnv.isAdmin('sk-admin'))
  assert.not.ok(fromEnv.isAdmin('sk-seeded'))
  const fromConfig = createKeyStore(seed, {
    dataDir: os.tmpdir(),
    env: {},
    log,
    adminKeyHash: formatHash(hashSecret('sk-config-admin')),
  })
  assert.ok(fromConfig.isAdmin('sk-config-admin'))
  const none = createKeyStore(seed, { dataDir: os.tmpdir(), env: {}, log })
  assert.not.ok(none.adminConfigured)
  assert.not.ok(none.isAdmin(''))
})
admin('without a store, changes answer 503 and lookups still work', async () => {
  const bare = createKeyStore(seed, { dataDir: os.tmpdir(), env: {}, log })
  assert.is(bare.lookup('sk-seeded')?.id, 'seeded')
  assert.is(await status(bare.createKey({ group: 'research' })), 503)
})
admin.run()
