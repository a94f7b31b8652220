/**
 * The store contract, run against both implementations: SQLite (the embedded default) and
 * PostgreSQL (scale-out). Same tests, same expectations.
 */
import * as assert from 'uvu/assert'
import type { Store, StoredKey } from '../../kernel/services/stores/store.js'
import type { UsageRecord } from '../../kernel/contract/records.js'
import { postgresTestStore, sqliteTestStore } from '../support/test-stores.js'
import { suiteNeeding } from '../support/needs-server.js'
import type { Server } from '../support/services.js'

const T0 = Date.UTC(2026, 4, 1)

function record(i: number, over: Partial<UsageRecord> = {}): UsageRecord {
  return {
    at: T0 + i * 1000,
    requestId: `req-${i}`,
    keyId: i % 2 === 0 ? 'alice' : 'bob',
    group: i % 2 === 0 ? 'research' : 'ops',
    route: 'chat',
    modelRequested: 'sim-chat',
    model: i % 3 === 0 ? 'sim-chat-thinking' : 'sim-chat-instruct',
    upstreamModel: 'sim-instruct-8b',
    promptTokens: 10,
    completionTokens: i,
    cachedTokens: 2,
    audioSeconds: 0,
    characters: 0,
    usageSource: 'reported',
    value: 0.5,
    status: 200,
    outcome: 'done',
    queueMs: 3,
    ttftMs: 12,
    totalMs: 40,
    parentRequestId: null,
    cached: false,
    fallbackFrom: null,
    ...over,
    charged: over.charged ?? over.value ?? 0.5,
  }
}

function key(id: string, over: Partial<StoredKey> = {}): StoredKey {
  return {
    id,
    group: 'research',
    digest: 'ab'.repeat(32),
    enabled: true,
    legacy: false,
    createdAt: T0,
    updatedAt: T0,
    deleted: false,
    ...over,
  }
}

function storeContract(
  label: string,
  needs: readonly Server[],
  open: () => Promise<{ store: Store; cleanup(): Promise<void> }>,
): void {
  const test = suiteNeeding(needs, `store contract: ${label}`)
  let opened: { store: Store; cleanup(): Promise<void> } | undefined
  test.before(async () => {
    opened = await open()
  })
  test.after(async () => {
    await opened?.store.close()
    await opened?.cleanup()
  })
  const it = (name: string, fn: (store: Store) => Promise<void>) => test(name, () => fn(opened!.store))

  it('records: a batch is inserted and read back with every figure, newest first', async (store) => {
    await store.records.insert([record(1), record(2, { upstreamModel: null, queueMs: null, ttftMs: null }), record(3)])
    const rows = await store.records.list({ from: T0, to: T0 + 10_000 }, 10)
    assert.equal(
      rows.map((r) => r.requestId),
      ['req-3', 'req-2', 'req-1'],
    )
    assert.equal(rows[2], record(1))
    assert.is(rows[1]!.upstreamModel, null)
    assert.is(rows[1]!.queueMs, null)
    assert.type(rows[0]!.at, 'number')
  })

  it('records: period bounds, filters and limit', async (store) => {
    assert.is(
      (await store.records.list({ from: T0 + 2000, to: T0 + 3000 }, 10)).length,
      1,
      'from inclusive, to exclusive',
    )
    assert.equal(
      (await store.records.list({ from: T0, to: T0 + 10_000, keyId: 'alice' }, 10)).map((r) => r.requestId),
      ['req-2'],
    )
    assert.equal(
      (await store.records.list({ from: T0, to: T0 + 10_000, group: 'ops' }, 10)).map((r) => r.requestId),
      ['req-3', 'req-1'],
    )
    assert.equal(
      (await store.records.list({ from: T0, to: T0 + 10_000, model: 'sim-chat-thinking' }, 10)).map((r) => r.requestId),
      ['req-3'],
    )
    assert.is((await store.records.list({ from: T0, to: T0 + 10_000 }, 2)).length, 2)
  })

  it('records: a batch larger than one statement', async (store) => {
    const many = Array.from({ length: 1200 }, (_, i) =>
      record(100 + i, { requestId: `bulk-${i}`, keyId: 'bulk', group: 'bulk' }),
    )
    await store.records.insert(many)
    const rows = await store.records.summarize({ from: T0, to: T0 + 10_000_000, keyId: 'bulk' }, 'key')
    assert.equal(rows, [
      {
        name: 'bulk',
        requests: 1200,
        promptTokens: 12_000,
        completionTokens: many.reduce((s, r) => s + r.completionTokens, 0),
        cachedTokens: 2400,
        audioSeconds: 0,
        characters: 0,
        value: 600,
        internalRequests: 0,
        internalPromptTokens: 0,
        internalCompletionTokens: 0,
        charged: 600,
        lastAt: T0 + 1299 * 1000,
      },
    ])
  })

  it('records: usage summed per key, per model and per group', async (store) => {
    const period = { from: T0, to: T0 + 10_000 }
    assert.equal(await store.records.summarize(period, 'key'), [
      {
        name: 'alice',
        requests: 1,
        promptTokens: 10,
        completionTokens: 2,
        cachedTokens: 2,
        audioSeconds: 0,
        characters: 0,
        value: 0.5,
        internalRequests: 0,
        internalPromptTokens: 0,
        internalCompletionTokens: 0,
        charged: 0.5,
        lastAt: T0 + 2000,
      },
      {
        name: 'bob',
        requests: 2,
        promptTokens: 20,
        completionTokens: 4,
        cachedTokens: 4,
        audioSeconds: 0,
        characters: 0,
        value: 1,
        internalRequests: 0,
        internalPromptTokens: 0,
        internalCompletionTokens: 0,
        charged: 1,
        lastAt: T0 + 3000,
      },
    ])
    assert.equal(
      (await store.records.summarize(period, 'model')).map((r) => [r.name, r.requests]),
      [
        ['sim-chat-instruct', 2],
        ['sim-chat-thinking', 1],
      ],
    )
    assert.equal(
      (await store.records.summarize(period, 'group')).map((r) => [r.name, r.requests]),
      [
        ['ops', 2],
        ['research', 1],
      ],
    )
  })

  it('records: what a key and a group spent since a time (seeds term budgets)', async (store) => {
    assert.is(await store.records.spent({ keyId: 'bob' }, T0), 1)
    assert.is(await store.records.spent({ keyId: 'bob' }, T0 + 2000), 0.5)
    assert.is(await store.records.spent({ group: 'research' }, T0), 0.5)
    assert.is(await store.records.spent({ keyId: 'nobody' }, T0), 0)
    assert.is(
      await store.records.spent({ keyId: 'bob' }, T0, T0 + 2000),
      0.5,
      'up to a time, exclusive (reconciles term budgets)',
    )
  })

  it('records: insertMissing adds only records not there yet (a journal replayed after a crash)', async (store) => {
    const period = { from: T0, to: T0 + 60_000 }
    const before = await store.records.list(period, 100)
    const again = before[0]!
    // Later than the records other tests look at.
    const fresh = { ...again, requestId: 'replayed-1', at: T0 + 50_000 }
    assert.is(await store.records.insertMissing([again, fresh]), 1)
    assert.is(await store.records.insertMissing([again, fresh]), 0)
    assert.is((await store.records.list(period, 100)).length, before.length + 1)
  })

  it('records: purge removes only records older than the cut', async (store) => {
    const removed = await store.records.purge(T0 + 2000)
    assert.is(removed, 1)
    assert.equal(
      (await store.records.list({ from: 0, to: T0 + 10_000 }, 10)).map((r) => r.requestId),
      ['req-3', 'req-2'],
    )
  })

  it('keys: insert is refused for a taken id; put upserts; every change moves the version', async (store) => {
    const v0 = await store.keys.version()
    assert.ok(await store.keys.insertKey(key('k1', { budget: { amount: 5, term: 'week' }, tokensPerMinute: 1000 })))
    assert.not.ok(await store.keys.insertKey(key('k1')), 'the id is taken')
    const v1 = await store.keys.version()
    assert.ok(v1 > v0)
    await store.keys.putKey(key('k1', { enabled: false, updatedAt: T0 + 1 }))
    await store.keys.putKey(key('seed', { legacy: true }))
    assert.ok((await store.keys.version()) > v1)
    const snap = await store.keys.load()
    const k1 = snap.keys.find((k) => k.id === 'k1')!
    assert.equal(
      JSON.parse(JSON.stringify(k1)),
      key('k1', { enabled: false, updatedAt: T0 + 1 }),
      'put replaced the whole row',
    )
    assert.is(snap.keys.find((k) => k.id === 'seed')!.legacy, true)
    assert.is(snap.version, await store.keys.version())
  })

  it('keys: budgets survive the round trip; a deleted key stays as a tombstone', async (store) => {
    await store.keys.putKey(key('k2', { budget: { amount: 2.5, term: 'day' }, tokensPerMinute: 300 }))
    await store.keys.putKey(key('k3', { deleted: true, digest: '' }))
    const snap = await store.keys.load()
    const k2 = snap.keys.find((k) => k.id === 'k2')!
    assert.equal(k2.budget, { amount: 2.5, term: 'day' })
    assert.is(k2.tokensPerMinute, 300)
    assert.is(snap.keys.find((k) => k.id === 'k3')!.deleted, true)
    assert.not.ok(await store.keys.insertKey(key('k3')), 'a deleted id is not reused')
  })

  it('keys: groups are stored whole and can be tombstoned', async (store) => {
    await store.keys.putGroup({
      id: 'g1',
      config: {
        models: ['sim-chat'],
        weight: 3,
        budget: { amount: 10, term: 'month' },
        tokens_per_minute: 500,
        forward_headers: false,
      },
      updatedAt: T0,
      deleted: false,
    })
    await store.keys.putGroup({
      id: 'g2',
      config: { models: ['*'], weight: 1, forward_headers: false },
      updatedAt: T0,
      deleted: true,
    })
    const snap = await store.keys.load()
    assert.equal(snap.groups.find((g) => g.id === 'g1')!.config, {
      models: ['sim-chat'],
      weight: 3,
      budget: { amount: 10, term: 'month' },
      tokens_per_minute: 500,
      forward_headers: false,
    })
    assert.is(snap.groups.find((g) => g.id === 'g2')!.deleted, true)
  })

  test.run()
}

storeContract('sqlite', [], async () => sqliteTestStore())

storeContract('postgres', ['postgres'], postgresTestStore)
