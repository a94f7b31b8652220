/**
 * How long a batch of usage records holds the gateway's thread in the embedded store (SQLite):
 * from the store's `insert(batch)` call until it returns its promise (the event loop is held
 * that long), and until the batch is written (the promise settles). Batches of 500 records
 * (records_batch's default) into one table, after 100 batches of warm-up, for this build and,
 * with --compare, another build's dist folder, in one process.
 *
 *   npm run bench -- records-batch     (or: node dist/bench/records-batch.js [--batches 400] [--compare <dist folder>])
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { repoRoot } from '../kernel/contract/paths.js'
import type { Store } from '../kernel/services/stores/store.js'
import type { UsageRecord } from '../kernel/contract/records.js'
import { option } from './bench-setup.js'

const BATCHES = option('batches', 400)
const WARM_UP = 100
const SIZE = 500

function record(i: number, now: number): UsageRecord {
  return {
    at: now - i,
    requestId: `chatcmpl-${i}-0123456789abcdef`,
    keyId: 'bench',
    group: 'bench',
    route: 'chat',
    modelRequested: 'sim-chat-instruct',
    model: 'sim-chat-instruct',
    upstreamModel: 'sim-instruct-8b',
    promptTokens: 10,
    completionTokens: 20,
    cachedTokens: 0,
    audioSeconds: 0,
    characters: 0,
    usageSource: 'reported',
    value: 0.0001,
    status: 200,
    outcome: 'done',
    queueMs: 0,
    ttftMs: 1,
    totalMs: 3,
    parentRequestId: null,
    charged: 0,
    cached: false,
    fallbackFrom: null,
  }
}

const quantile = (xs: number[], q: number) =>
  [...xs]
    .sort((a, b) => a - b)
    [Math.floor(xs.length * q)]!.toFixed(2)
    .padStart(6)

async function measure(label: string, dist: string): Promise<void> {
  const { openSqliteStore } = (await import(
    pathToFileURL(path.join(dist, 'kernel', 'services', 'stores', 'sqlite-store.js')).href
  )) as { openSqliteStore: (dir: string) => Store }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-records-'))
  const store = openSqliteStore(dir)
  const now = Date.now()
  const held: number[] = []
  const written: number[] = []
  for (let b = 0; b < WARM_UP + BATCHES; b++) {
    const batch = Array.from({ length: SIZE }, (_, i) => record(b * SIZE + i, now))
    const t0 = performance.now()
    const done = store.records.insert(batch)
    const t1 = performance.now()
    await done
    const t2 = performance.now()
    if (b >= WARM_UP) {
      held.push(t1 - t0)
      written.push(t2 - t0)
    }
  }
  await store.close()
  fs.rmSync(dir, { recursive: true, force: true })
  console.log(
    `${label.padEnd(16)} thread held: p50 ${quantile(held, 0.5)} ms  p99 ${quantile(held, 0.99)} ms   until written: p50 ${quantile(written, 0.5)} ms  p99 ${quantile(written, 0.99)} ms`,
  )
}

console.log(
  `Sluice records batch: ${BATCHES} batches of ${SIZE} records into the embedded store (after ${WARM_UP} of warm-up), node ${process.version}\n`,
)
await measure('this build', path.join(repoRoot, 'dist'))
const at = process.argv.indexOf('--compare')
if (at !== -1) await measure('--compare build', path.resolve(process.argv[at + 1]!))
process.exit(0)
