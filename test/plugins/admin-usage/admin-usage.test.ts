import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import adminUsage from '../../../plugins/admin-usage/index.js'
import { makeServedKernel, runPlugin } from '../../../bin/testing/harness.js'
import type { Kernel } from '../../../kernel/contract/kernel.js'
import type { UsageRecord } from '../../../kernel/contract/records.js'

const test = suite('plugin admin-usage')
const NOW = Date.UTC(2026, 4, 14, 12)
let kernel: Kernel
let close: () => Promise<void>

const rec = (i: number, keyId: string, model: string, at = NOW - 1000 * i): UsageRecord => ({
  at,
  requestId: `r${i}`,
  keyId,
  group: keyId === 'carol' ? 'ops' : 'research',
  route: 'chat',
  modelRequested: model,
  model,
  upstreamModel: null,
  promptTokens: 10,
  completionTokens: 5,
  cachedTokens: 1,
  audioSeconds: 0,
  characters: 0,
  usageSource: 'reported',
  value: 0.25,
  status: 200,
  outcome: 'done',
  queueMs: 1,
  ttftMs: 2,
  totalMs: 3,
  parentRequestId: null,
  charged: 0.25,
  cached: false,
  fallbackFrom: null,
})

test.before(async () => {
  const served = await makeServedKernel({ now: () => NOW })
  kernel = served.kernel
  close = served.close
  kernel.records.add(rec(1, 'alice', 'm1'))
  kernel.records.add(rec(2, 'alice', 'm2'))
  kernel.records.add(rec(3, 'bob', 'm1'))
  kernel.records.add(rec(4, 'carol', 'm1', Date.UTC(2026, 3, 20)))
  // Not flushed on purpose: the query flushes first.
})
test.after(async () => close())

const act = (action: string, query = '') =>
  runPlugin(adminUsage, { action }, { kernel, state: { admin: { authenticated: true } }, query })
const body = (run: Awaited<ReturnType<typeof act>>) =>
  run.reply?.kind === 'json'
    ? (run.reply.body as { data: Record<string, unknown>[]; from: string; to: string })
    : undefined

test('per key this month (the default period): requests, tokens, value', async () => {
  const b = body(await act('summary'))!
  assert.is(b.from, '2026-05-01T00:00:00.000Z')
  assert.equal(b.data, [
    {
      key: 'alice',
      requests: 2,
      prompt_tokens: 20,
      completion_tokens: 10,
      cached_tokens: 2,
      total_tokens: 30,
      audio_seconds: 0,
      characters: 0,
      value: 0.5,
      last_at: '2026-05-14T11:59:59.000Z',
    },
    {
      key: 'bob',
      requests: 1,
      prompt_tokens: 10,
      completion_tokens: 5,
      cached_tokens: 1,
      total_tokens: 15,
      audio_seconds: 0,
      characters: 0,
      value: 0.25,
      last_at: '2026-05-14T11:59:57.000Z',
    },
  ])
})

test('per model, per group, over a given period, with filters', async () => {
  assert.equal(
    body(await act('summary', 'by=model&from=2026-04-01T00:00:00Z'))!.data.map((r) => [r.model, r.requests]),
    [
      ['m1', 3],
      ['m2', 1],
    ],
  )
  assert.equal(
    body(await act('summary', 'by=group&from=2026-04-01'))!.data.map((r) => [r.group, r.requests]),
    [
      ['ops', 1],
      ['research', 3],
    ],
  )
  assert.equal(
    body(await act('summary', 'by=model&key=alice'))!.data.map((r) => r.model),
    ['m1', 'm2'],
  )
})

test('the records themselves, newest first, with a limit', async () => {
  const b = body(await act('records', 'limit=2'))!
  assert.equal(
    b.data.map((r) => r.request_id),
    ['r1', 'r2'],
  )
  assert.equal(Object.keys(b.data[0]!).sort(), [
    'at',
    'cached_tokens',
    'completion_tokens',
    'fallback_from',
    'group',
    'key',
    'model',
    'model_requested',
    'outcome',
    'prompt_tokens',
    'queue_ms',
    'request_id',
    'route',
    'status',
    'total_ms',
    'ttft_ms',
    'upstream_model',
    'value',
  ])
})

test('bad queries: 400 with the reason', async () => {
  for (const [action, query, reason] of [
    ['summary', 'by=colour', /by must be one of key, model, group/],
    ['summary', 'from=yesterday', /from must be an ISO 8601 time/],
    ['summary', 'from=2026-05-10&to=2026-05-01', /to must be after from/],
    ['records', 'limit=0', /limit must be an integer from 1 to 1000/],
    ['records', 'limit=lots', /limit must be an integer/],
    // Times no Date holds (the fuzzer found a 500 "Invalid time value" rendering them).
    ['summary', 'to=9999999999999999999', /to must be an ISO 8601 time or epoch milliseconds/],
    ['records', 'from=8640000000000001', /from must be an ISO 8601 time/],
  ] as const) {
    const run = await act(action, query)
    assert.is(run.error?.status, 400, query)
    assert.match(run.error!.message, reason)
  }
})

test.run()
