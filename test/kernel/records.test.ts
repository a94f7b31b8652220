/** The usage-record writer: buffered, written in batches off the request path, never lost to a hiccup. */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { RecordsTable } from '../../kernel/services/stores/store.js'
import type { UsageRecord } from '../../kernel/contract/records.js'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { RecordWriter } from '../../kernel/services/records/records.js'
import { RecordJournal } from '../../kernel/services/records/journal.js'
import { MetricsRegistry } from '../../kernel/services/metrics/metrics.js'
import { createLogger } from '../../kernel/contract/log.js'

const test = suite('kernel records writer')
const log = createLogger({ level: 'error', sink: { write: () => undefined } })
const DAY = 86_400_000
const NOW = Date.UTC(2026, 4, 14)

function rec(i: number, at = NOW): UsageRecord {
  return {
    at,
    requestId: `r${i}`,
    keyId: 'k',
    group: 'g',
    route: 'chat',
    modelRequested: 'm',
    model: 'm',
    upstreamModel: null,
    promptTokens: 1,
    completionTokens: 1,
    cachedTokens: 0,
    audioSeconds: 0,
    characters: 0,
    usageSource: 'reported',
    value: 0,
    status: 200,
    outcome: 'done',
    queueMs: 0,
    ttftMs: 0,
    totalMs: 1,
    parentRequestId: null,
    charged: 0,
    cached: false,
    fallbackFrom: null,
  }
}

/** A table in memory that can be told to fail. */
function fakeTable() {
  const rows: UsageRecord[] = []
  const table = {
    rows,
    inserts: 0,
    failing: false,
    purgedBefore: [] as number[],
    async insert(batch: readonly UsageRecord[]) {
      if (table.failing) throw new Error('store down')
      table.inserts++
      rows.push(...batch)
    },
    async insertMissing(batch: readonly UsageRecord[]) {
      const missing = batch.filter(
        (r) => !rows.some((x) => x.requestId === r.requestId && x.route === r.route && x.at === r.at),
      )
      rows.push(...missing)
      return missing.length
    },
    async list() {
      return [...rows]
    },
    async summarize() {
      return []
    },
    async spent() {
      return 0
    },
    async ping() {},
    async purge(before: number) {
      table.purgedBefore.push(before)
      return 0
    },
  } satisfies RecordsTable & Record<string, unknown>
  return table
}

test('add only buffers; the batch is written on flush, in one insert', async () => {
  const table = fakeTable()
  const w = new RecordWriter(table, {
    flushMs: 60_000,
    batch: 100,
    retentionDays: 180,
    log,
    metrics: new MetricsRegistry(),
    now: () => NOW,
  })
  for (let i = 0; i < 10; i++) w.add(rec(i))
  assert.is(table.rows.length, 0, 'nothing written on add')
  await w.flush()
  assert.is(table.rows.length, 10)
  assert.is(table.inserts, 1)
  await w.close()
})

test('a full buffer is written without waiting for the timer', async () => {
  const table = fakeTable()
  const w = new RecordWriter(table, {
    flushMs: 60_000,
    batch: 5,
    retentionDays: 180,
    log,
    metrics: new MetricsRegistry(),
    now: () => NOW,
  })
  for (let i = 0; i < 5; i++) w.add(rec(i))
  await new Promise((r) => setImmediate(r))
  assert.is(table.rows.length, 5)
  await w.close()
})

test('the timer writes what is buffered', async () => {
  const table = fakeTable()
  const w = new RecordWriter(table, {
    flushMs: 20,
    batch: 100,
    retentionDays: 180,
    log,
    metrics: new MetricsRegistry(),
    now: () => NOW,
  })
  w.add(rec(1))
  await new Promise((r) => setTimeout(r, 60))
  assert.is(table.rows.length, 1)
  await w.close()
})

test('a store that fails keeps the batch for the next attempt; a full buffer drops the oldest, counted', async () => {
  const table = fakeTable()
  const metrics = new MetricsRegistry()
  const w = new RecordWriter(table, {
    flushMs: 60_000,
    batch: 1000,
    retentionDays: 180,
    log,
    metrics,
    now: () => NOW,
    maxBuffered: 5,
  })
  table.failing = true
  for (let i = 0; i < 3; i++) w.add(rec(i))
  await w.flush()
  assert.is(table.rows.length, 0)
  for (let i = 3; i < 7; i++) w.add(rec(i))
  table.failing = false
  await w.flush()
  assert.equal(
    table.rows.map((r) => r.requestId),
    ['r2', 'r3', 'r4', 'r5', 'r6'],
  )
  assert.match(metrics.render(), /sluice_records_dropped_total 2/)
  assert.match(metrics.render(), /sluice_records_write_failures_total 1/)
  await w.close()
})

test('close writes what is left; records added after close are ignored', async () => {
  const table = fakeTable()
  const w = new RecordWriter(table, {
    flushMs: 60_000,
    batch: 100,
    retentionDays: 180,
    log,
    metrics: new MetricsRegistry(),
    now: () => NOW,
  })
  w.add(rec(1))
  await w.close()
  assert.is(table.rows.length, 1)
  w.add(rec(2))
  await w.flush()
  assert.is(table.rows.length, 1)
})

test('records older than the retention are purged (at start, then hourly)', async () => {
  const table = fakeTable()
  const w = new RecordWriter(table, {
    flushMs: 60_000,
    batch: 100,
    retentionDays: 180,
    log,
    metrics: new MetricsRegistry(),
    now: () => NOW,
  })
  await new Promise((r) => setImmediate(r))
  assert.equal(table.purgedBefore, [NOW - 180 * DAY])
  await w.close()
})

test('with a journal, records a crash left unwritten are replayed at the next start, once', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-journal-'))
  const table = fakeTable()
  const first = await RecordJournal.open(dir, table)
  const w = new RecordWriter(table, {
    flushMs: 60_000,
    batch: 100,
    retentionDays: 180,
    log,
    metrics: new MetricsRegistry(),
    now: () => NOW,
    journal: first.journal,
  })
  for (let i = 0; i < 3; i++) w.add(rec(i))
  await w.flush()
  assert.is(table.rows.length, 3)
  assert.equal(
    fs.readdirSync(dir),
    ['records-2.journal'],
    'the written batch left the journal; the open segment is empty',
  )
  // Two more, their replies sent (once the journal has them), then a crash: no flush, no
  // close. One of them was written just before it.
  w.add(rec(3))
  w.add(rec(4))
  await w.durable()
  table.rows.push(rec(3))
  fs.appendFileSync(path.join(dir, 'records-2.journal'), '{"at":1,"requestId":"cut sho')
  const after = fakeTable()
  after.rows.push(...table.rows)
  const second = await RecordJournal.open(dir, after)
  assert.is(second.replayed, 1, 'the one missing record; the cut line is not a record')
  assert.equal(
    after.rows.map((r) => r.requestId),
    ['r0', 'r1', 'r2', 'r3', 'r4'],
  )
  assert.equal(fs.readdirSync(dir), ['records-3.journal'])
  second.journal.close()
  assert.equal(fs.readdirSync(dir), [], 'an empty segment is not kept')
  // The crashed writer's timers stop here (the process would be gone).
  await w.close().catch(() => undefined)
})

test('the journal writes the records of a turn at once, and durable() resolves only when they are in the file', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-journal-'))
  const table = fakeTable()
  const { journal } = await RecordJournal.open(dir, table)
  const w = new RecordWriter(table, {
    flushMs: 60_000,
    batch: 100,
    retentionDays: 180,
    log,
    metrics: new MetricsRegistry(),
    now: () => NOW,
    journal,
  })
  const file = path.join(dir, fs.readdirSync(dir)[0] ?? 'records-1.journal')
  const lines = () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0)
  assert.is(w.durable(), undefined, 'nothing waits')
  w.add(rec(1))
  w.add(rec(2))
  const durable = w.durable()
  assert.ok(durable, 'a reply must wait for its record')
  assert.is(lines(), 0, 'not written yet: the turn is not over')
  let resolved = false
  void durable.then(() => (resolved = true))
  await Promise.resolve()
  assert.not.ok(resolved, 'durable() does not resolve before the write')
  await durable
  assert.is(lines(), 2, 'both records in one write, before durable() resolved')
  assert.is(w.durable(), undefined)
  // A batch sealed in the same turn as an add takes the record with it.
  w.add(rec(3))
  await w.flush()
  assert.equal(
    table.rows.map((r) => r.requestId),
    ['r1', 'r2', 'r3'],
  )
  await w.close()
  assert.equal(fs.readdirSync(dir), [], 'every record written, nothing left to replay')
})

test.run()
