/**
 * The conversation history contract, run against both implementations (SQLite, PostgreSQL):
 * turns per project and session, appended atomically, read oldest first, capped per session,
 * and gone after the retention.
 */
import * as assert from 'uvu/assert'
import { openHistory } from '../../../domains/query/history-store.js'
import type { HistoryTurn } from '../../../domains/query/history.js'
import {
  queryStoreFixture,
  serversFor,
  type QueryStoreFixture,
  type QueryStoreKind,
} from '../../support/query-stores.js'
import { suiteNeeding } from '../../support/needs-server.js'

const DAY = 86_400_000

function historyContract(kind: QueryStoreKind): void {
  const test = suiteNeeding(serversFor(kind), `query history store: ${kind}`)
  let fx: QueryStoreFixture | undefined
  let history: Awaited<ReturnType<typeof openHistory>> | undefined
  test.before(async () => {
    fx = await queryStoreFixture(kind, { history_max_turns: 6, history_retention_days: 30 })
    history = await openHistory(fx.options)
  })
  test.after(async () => {
    await history?.close()
    await fx?.cleanup()
  })
  const it = (name: string, fn: (h: NonNullable<typeof history>, f: QueryStoreFixture) => Promise<void>) =>
    test(name, () => fn(history!, fx!))
  const turns = (q: string, at: number): HistoryTurn[] => [
    { role: 'user', content: `question ${q}`, at, queryId: q },
    { role: 'assistant', content: `answer ${q}`, at, queryId: q },
  ]

  it('turns come back oldest first, the most recent `limit` of them', async (h, f) => {
    await h.append('p1', 's1', turns('q1', f.clock.t))
    await h.append('p1', 's1', turns('q2', f.clock.t))
    const all = await h.recent('p1', 's1', 10)
    assert.equal(
      all.map((t) => t.content),
      ['question q1', 'answer q1', 'question q2', 'answer q2'],
    )
    assert.equal(all[0], { role: 'user', content: 'question q1', at: f.clock.t, queryId: 'q1' })
    const last3 = await h.recent('p1', 's1', 3)
    assert.equal(
      last3.map((t) => t.content),
      ['answer q1', 'question q2', 'answer q2'],
    )
  })

  it('sessions and projects are kept apart', async (h, f) => {
    await h.append('p1', 'other', turns('x', f.clock.t))
    await h.append('p2', 's1', turns('y', f.clock.t))
    assert.equal(
      (await h.recent('p1', 'other', 10)).map((t) => t.queryId),
      ['x', 'x'],
    )
    assert.equal(
      (await h.recent('p2', 's1', 10)).map((t) => t.queryId),
      ['y', 'y'],
    )
    assert.equal((await h.recent('p1', 's1', 10)).length, 4)
    assert.equal(await h.recent('p3', 's1', 10), [])
  })

  it('a limit of 0 (or nonsense) reads nothing; an empty append changes nothing', async (h) => {
    assert.equal(await h.recent('p1', 's1', 0), [])
    assert.equal(await h.recent('p1', 's1', -1), [])
    await h.append('p1', 's1', [])
    assert.equal((await h.recent('p1', 's1', 100)).length, 4)
  })

  it('a session keeps at most history_max_turns: the oldest go first', async (h, f) => {
    for (let i = 0; i < 5; i++) await h.append('p1', 'capped', turns(`c${i}`, f.clock.t))
    const kept = await h.recent('p1', 'capped', 100)
    assert.is(kept.length, 6)
    assert.equal(
      kept.map((t) => t.queryId),
      ['c2', 'c2', 'c3', 'c3', 'c4', 'c4'],
    )
  })

  it('concurrent appends to one session keep every pair whole and the cap', async (h, f) => {
    await Promise.all(Array.from({ length: 8 }, (_, i) => h.append('p1', 'busy', turns(`b${i}`, f.clock.t))))
    const kept = await h.recent('p1', 'busy', 100)
    assert.is(kept.length, 6)
    for (let i = 0; i < kept.length; i += 2) {
      assert.is(kept[i]!.role, 'user')
      assert.is(kept[i + 1]!.role, 'assistant')
      assert.is(kept[i]!.queryId, kept[i + 1]!.queryId)
    }
  })

  it('turns past the retention are not returned, and the purge removes them', async (h, f) => {
    const start = f.clock.t
    await h.append('p1', 'old', turns('old', start))
    f.clock.t = start + 10 * DAY
    await h.append('p1', 'old', turns('new', f.clock.t))
    f.clock.t = start + 31 * DAY
    assert.equal(
      (await h.recent('p1', 'old', 10)).map((t) => t.queryId),
      ['new', 'new'],
    )
    const purged = await h.purge()
    assert.ok(purged >= 2, `purged ${purged}`)
    f.clock.t = start
    assert.equal(
      (await h.recent('p1', 'old', 10)).map((t) => t.queryId),
      ['new', 'new'],
      'the old turns are gone from the table',
    )
  })

  test.run()
}

historyContract('sqlite')
historyContract('postgres')
