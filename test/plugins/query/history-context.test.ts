/**
 * historyContext and rememberTurn over the real SQLite history store: stored turns only with
 * history on and a session, a supplied history instead of them, the newest kept within the
 * budget and returned oldest first, `tokens` the sum of what was kept.
 */
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { openHistory } from '../../../domains/query/history-store.js'
import { historyContext, rememberTurn } from '../../../plugins/query/history-context.js'
import { queryStoreFixture, type QueryStoreFixture } from '../../support/query-stores.js'

let fx: QueryStoreFixture
let history: Awaited<ReturnType<typeof openHistory>>
/** One token per word: easy to reckon with in the assertions. */
const countTokens = (text: string) => text.split(/\s+/).filter(Boolean).length
const base = { projectId: 'demo', sessionId: 's1', enabled: true, budgetTokens: 1000, countTokens }

test.before(async () => {
  fx = (await queryStoreFixture('sqlite'))!
  history = await openHistory(fx.options)
  await rememberTurn(history, {
    projectId: 'demo',
    sessionId: 's1',
    queryId: 'q1',
    query: 'what is alpha',
    answer: 'alpha is the first',
    at: fx.clock.t,
  })
  await rememberTurn(history, {
    projectId: 'demo',
    sessionId: 's1',
    queryId: 'q2',
    query: 'and bravo',
    answer: 'bravo is the second one',
    at: fx.clock.t + 1,
  })
})
test.after(async () => {
  await history.close()
  await fx.cleanup()
})

test('rememberTurn keeps the query and its answer as two turns of the session', async () => {
  const turns = await history.recent('demo', 's1', 10)
  assert.equal(
    turns.map((t) => [t.role, t.content, t.queryId]),
    [
      ['user', 'what is alpha', 'q1'],
      ['assistant', 'alpha is the first', 'q1'],
      ['user', 'and bravo', 'q2'],
      ['assistant', 'bravo is the second one', 'q2'],
    ],
  )
})

test('stored turns, oldest first, with their token count', async () => {
  const h = await historyContext(history, base)
  assert.equal(h.messages, [
    { role: 'user', content: 'what is alpha' },
    { role: 'assistant', content: 'alpha is the first' },
    { role: 'user', content: 'and bravo' },
    { role: 'assistant', content: 'bravo is the second one' },
  ])
  assert.is(h.tokens, 3 + 4 + 2 + 5)
})

test('the newest turns are kept first within the budget; the walk stops at the first that does not fit', async () => {
  const h = await historyContext(history, { ...base, budgetTokens: 8 })
  assert.equal(
    h.messages.map((m) => m.content),
    ['and bravo', 'bravo is the second one'],
  )
  assert.is(h.tokens, 7)
  // 4 + 2 would fit under 12 once the 5-token answer is in, but the unbroken stretch ends at the 4-token turn.
  const h2 = await historyContext(history, { ...base, budgetTokens: 10 })
  assert.equal(
    h2.messages.map((m) => m.content),
    ['and bravo', 'bravo is the second one'],
  )
  const none = await historyContext(history, { ...base, budgetTokens: 4 })
  assert.equal(none, { messages: [], tokens: 0 })
})

test('no stored turns with history off, or without a session', async () => {
  assert.equal(await historyContext(history, { ...base, enabled: false }), { messages: [], tokens: 0 })
  assert.equal(await historyContext(history, { ...base, sessionId: undefined }), { messages: [], tokens: 0 })
  assert.equal(await historyContext(history, { ...base, sessionId: 'unknown' }), { messages: [], tokens: 0 })
})

test('a supplied history is used instead of the stored one, whatever enable_history says', async () => {
  const supplied = [
    { role: 'user' as const, content: 'custom question' },
    { role: 'assistant' as const, content: 'custom answer here' },
  ]
  for (const enabled of [true, false]) {
    const h = await historyContext(history, { ...base, enabled, supplied })
    assert.equal(h.messages, supplied)
    assert.is(h.tokens, 5)
  }
  assert.equal(
    await historyContext(history, { ...base, supplied: [] }),
    { messages: [], tokens: 0 },
    'an empty array means no history',
  )
  const cut = await historyContext(history, { ...base, supplied, budgetTokens: 3 })
  assert.equal(cut.messages, [{ role: 'assistant', content: 'custom answer here' }])
})

test('projects are kept apart', async () => {
  assert.equal(await historyContext(history, { ...base, projectId: 'other' }), { messages: [], tokens: 0 })
})

test.run()
