/**
 * The stored-responses contract, run against both stores: SQLite (the embedded default) and
 * PostgreSQL (scale-out). Same tests, same expectations; and the keeper's retention on top.
 */
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {
  openResponsesTable,
  type ResponsesTable,
  type StoredResponse,
} from '../../plugins/openai-responses/store/responses-table.js'
import { ResponseKeeper } from '../../plugins/openai-responses/store/kept-responses.js'
import { storesAccess } from '../../kernel/services/stores/stores-access.js'
import { createLogger } from '../../kernel/contract/log.js'
import { dropSchema } from '../support/test-stores.js'
import { POSTGRES_URL, uniqueName } from '../support/services.js'
import { suiteNeeding } from '../support/needs-server.js'
import type { Server } from '../support/services.js'

const T0 = Date.UTC(2026, 4, 1)
const DAY = 86_400_000
const hex = (n: number) => n.toString(16).padStart(48, '0')

function stored(n: number, keyId: string, over: Partial<StoredResponse> = {}): StoredResponse {
  const id = `resp_${hex(n)}`
  return {
    id,
    keyId,
    createdAt: T0 + n * 1000,
    response: {
      id,
      object: 'response',
      output: [{ type: 'message', id: `msg_${hex(n)}_0`, content: [{ type: 'output_text', text: `answer ${n} ✓` }] }],
    },
    input: [{ type: 'message', id: `msg_${hex(n)}_i0`, role: 'user', content: `question ${n}` }],
    ...over,
  }
}

/** The table as the plugin opens it (kernel.stores), in a fresh folder or a fresh PostgreSQL schema. */
interface Store {
  responses: ResponsesTable
  close(): Promise<void>
}

async function openTable(postgres?: {
  url: string
  schema: string
}): Promise<{ store: Store; cleanup(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-responses-'))
  const responses = await openResponsesTable(storesAccess({ dataDir: dir, postgres }))
  return {
    store: { responses, close: () => responses.close() },
    async cleanup() {
      if (postgres) await dropSchema(postgres.schema)
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

function contract(
  label: string,
  needs: readonly Server[],
  open: () => Promise<{ store: Store; cleanup(): Promise<void> }>,
): void {
  const test = suiteNeeding(needs, `stored responses contract: ${label}`)
  let opened: { store: Store; cleanup(): Promise<void> } | undefined
  test.before(async () => {
    opened = await open()
  })
  test.after(async () => {
    await opened?.store.close()
    await opened?.cleanup()
  })
  const it = (name: string, fn: (store: Store) => Promise<void>) => test(name, () => fn(opened!.store))

  it('a response is kept whole, and read back by its own key only', async (store) => {
    await store.responses.put(stored(1, 'alice'))
    assert.equal(await store.responses.get('alice', stored(1, 'alice').id), stored(1, 'alice'))
    assert.is(
      await store.responses.get('bob', stored(1, 'alice').id),
      undefined,
      "another key's id is as unknown as a missing one",
    )
    assert.is(await store.responses.get('alice', `resp_${hex(999)}`), undefined)
  })

  it('put again replaces the response and its input', async (store) => {
    await store.responses.put(stored(1, 'alice', { response: { id: 'x', status: 'completed' } }))
    assert.equal((await store.responses.get('alice', stored(1, 'alice').id))!.response, {
      id: 'x',
      status: 'completed',
    })
  })

  it('delete: only by the owning key, once', async (store) => {
    await store.responses.put(stored(2, 'alice'))
    assert.is(await store.responses.delete('bob', stored(2, 'alice').id), false)
    assert.is(await store.responses.delete('alice', stored(2, 'alice').id), true)
    assert.is(await store.responses.delete('alice', stored(2, 'alice').id), false)
    assert.is(await store.responses.get('alice', stored(2, 'alice').id), undefined)
  })

  it('purge: older than the cut, and each key beyond its newest N', async (store) => {
    for (let n = 10; n < 16; n++) await store.responses.put(stored(n, n % 2 === 0 ? 'carol' : 'dave'))
    // Before T0 + 11 s: response 1 (alice) and 10 (carol) go. Then each key keeps its newest 2.
    const removed = await store.responses.purge(T0 + 11_000, 2)
    assert.is(removed, 3)
    const left = async (key: string, ns: number[]) =>
      (await Promise.all(ns.map((n) => store.responses.get(key, stored(n, key).id)))).map((r) => r !== undefined)
    assert.equal(await left('carol', [10, 12, 14]), [false, true, true])
    assert.equal(await left('dave', [11, 13, 15]), [false, true, true])
    assert.equal(await left('alice', [1]), [false])
  })

  it('the keeper hides what is past retention even before a purge', async (store) => {
    const now = T0 + 31 * DAY
    const keeper = new ResponseKeeper(store.responses, {
      retentionDays: 30,
      maxPerKey: 100,
      log: createLogger({ level: 'error', sink: { write: () => undefined } }),
      now: () => now,
    })
    try {
      await store.responses.put(stored(20, 'erin', { createdAt: now - 29 * DAY }))
      assert.ok(await keeper.get('erin', stored(20, 'erin').id))
      await store.responses.put(stored(21, 'erin', { createdAt: now - 31 * DAY }))
      assert.is(await keeper.get('erin', stored(21, 'erin').id), undefined)
    } finally {
      keeper.close()
    }
  })

  test.run()
}

contract('sqlite', [], () => openTable())

contract('postgres', ['postgres'], () => openTable({ url: POSTGRES_URL, schema: uniqueName('sluice_test') }))
