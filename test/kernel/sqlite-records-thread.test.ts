/**
 * The embedded store's record batches, written by a thread of their own (sqlite-records-thread.ts):
 * what the gateway's thread reads after a flush is all there, once; a batch the store refuses
 * in that thread stays with the writer (and in the journal) until a later attempt succeeds;
 * a graceful close writes what is left before the thread ends.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import type { UsageRecord } from '../../kernel/contract/records.js'
import { openSqliteStore } from '../../kernel/services/stores/sqlite-store.js'
import { RecordWriter } from '../../kernel/services/records/records.js'
import { RecordJournal } from '../../kernel/services/records/journal.js'
import { MetricsRegistry } from '../../kernel/services/metrics/metrics.js'
import { createLogger } from '../../kernel/contract/log.js'

const test = suite('kernel: SQLite records written by their own thread')
const NOW = Date.UTC(2026, 10, 24)
const everything = { from: 0, to: NOW + 1 }

function rec(i: number): UsageRecord {
  return {
    at: NOW - i,
    requestId: `r${i}`,
    keyId: i % 2 ? 'alice' : 'bob',
    group: 'g',
    route: 'chat',
    modelRequested: 'm',
    model: 'm',
    upstreamModel: null,
    promptTokens: 10,
    completionTokens: 1,
    cachedTokens: 0,
    audioSeconds: 0,
    characters: 0,
    usageSource: 'reported',
    value: 0.25,
    status: 200,
    outcome: 'done',
    queueMs: 0,
    ttftMs: 0,
    totalMs: 1,
    parentRequestId: null,
    charged: 0.25,
    cached: false,
    fallbackFrom: null,
  }
}

function dataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-records-thread-'))
}

function writer(
  store: ReturnType<typeof openSqliteStore>,
  metrics = new MetricsRegistry(),
  journal?: RecordJournal,
  lines: string[] = [],
) {
  const log = createLogger({ level: 'error', sink: { write: (line) => void lines.push(line) } })
  return new RecordWriter(store.records, {
    flushMs: 60_000,
    batch: 500,
    retentionDays: 3650,
    log,
    metrics,
    now: () => NOW,
    journal,
  })
}

test('records added under load, in many batches, are all in the store after a flush, once; reads go on meanwhile', async () => {
  const dir = dataDir()
  const store = openSqliteStore(dir)
  const w = writer(store)
  const spentMeanwhile: number[] = []
  for (let i = 0; i < 5000; i++) {
    w.add(rec(i))
    // Every 250 records the event loop turns (full batches go to the thread) and the gateway's thread reads.
    if (i % 250 === 249) spentMeanwhile.push(await store.records.spent({ keyId: 'alice' }, 0))
  }
  await w.flush()
  const rows = await store.records.list(everything, 10_000)
  assert.is(rows.length, 5000)
  assert.is(new Set(rows.map((r) => r.requestId)).size, 5000, 'no record twice')
  assert.is(await store.records.spent({ keyId: 'alice' }, 0), 2500 * 0.25)
  assert.ok(
    spentMeanwhile.every((s, i) => i === 0 || s >= spentMeanwhile[i - 1]!),
    'reads during the writes saw whole batches, growing',
  )
  await w.close()
  await store.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

test('a batch the store refuses in the thread stays with the writer and in the journal; the next attempt writes it', async () => {
  const dir = dataDir()
  const store = openSqliteStore(dir)
  const opened = await RecordJournal.open(path.join(dir, 'records-journal'), store.records)
  const metrics = new MetricsRegistry()
  const lines: string[] = []
  const w = writer(store, metrics, opened.journal, lines)
  // A real SQLite failure, raised inside the thread's transaction: another connection adds a trigger that aborts every insert.
  const other = new Database(path.join(dir, 'sluice.db'))
  other.exec(`CREATE TRIGGER refuse BEFORE INSERT ON usage_records BEGIN SELECT RAISE(ABORT, 'disk says no'); END`)
  for (let i = 0; i < 700; i++) w.add(rec(i))
  await w.flush()
  assert.is(
    (await store.records.list(everything, 10_000)).length,
    0,
    'nothing written, not even the first 64-row statement',
  )
  assert.match(metrics.render(), /sluice_records_write_failures_total [1-9]/)
  assert.ok(
    lines.some((l) => l.includes('usage records not written') && l.includes('disk says no')),
    "the thread's error reaches the log",
  )
  const journaled = fs
    .readdirSync(path.join(dir, 'records-journal'))
    .filter((f) => fs.statSync(path.join(dir, 'records-journal', f)).size > 0)
  assert.ok(journaled.length > 0, 'the refused records are still in the journal')

  other.exec('DROP TRIGGER refuse')
  other.close()
  w.add(rec(700))
  await w.flush()
  const rows = await store.records.list(everything, 10_000)
  assert.is(rows.length, 701)
  assert.is(new Set(rows.map((r) => r.requestId)).size, 701)
  assert.match(metrics.render(), /sluice_records_written_total 701/)
  const left = fs
    .readdirSync(path.join(dir, 'records-journal'))
    .filter((f) => fs.statSync(path.join(dir, 'records-journal', f)).size > 0)
  assert.equal(left, [], 'once written, the journal lets them go')
  await w.close()
  await store.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

test('a graceful close writes what is left before the thread ends; the store refuses batches after', async () => {
  const dir = dataDir()
  const store = openSqliteStore(dir)
  const w = writer(store)
  for (let i = 0; i < 1234; i++) w.add(rec(i))
  // As the gateway stops: the records writer, then the store.
  await w.close()
  // A batch still on its way when the store closes is finished first.
  const late = store.records.insert([rec(5000), rec(5001)])
  await store.close()
  await late
  const refused = await store.records.insert([rec(9999)]).then(
    () => undefined,
    (err: Error) => err.message,
  )
  assert.match(refused ?? 'accepted', /closed/)
  const again = openSqliteStore(dir)
  assert.is((await again.records.list(everything, 10_000)).length, 1236)
  await again.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

test('the journal of a crashed run is replayed through the thread, skipping what a batch had already written', async () => {
  const dir = dataDir()
  const journalDir = path.join(dir, 'records-journal')
  const store = openSqliteStore(dir)
  await store.records.insert([rec(1), rec(2)])
  fs.mkdirSync(journalDir)
  fs.writeFileSync(
    path.join(journalDir, 'records-1.journal'),
    [rec(1), rec(2), rec(3)].map((r) => `${JSON.stringify(r)}\n`).join(''),
  )
  const opened = await RecordJournal.open(journalDir, store.records)
  assert.is(opened.replayed, 1)
  assert.equal((await store.records.list(everything, 10)).map((r) => r.requestId).sort(), ['r1', 'r2', 'r3'])
  opened.journal.close()
  await store.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

test.run()
