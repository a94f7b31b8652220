/**
 * What a batch of usage records costs in the scale-out store (PostgreSQL): the gateway's CPU
 * (this process: pg building and sending the statement) and the server's (the backends of this
 * store's pool, found by application_name, their CPU from /proc) a record, for batches of 500
 * (records_batch's default) after 10 batches of warm-up. With --compare, another build's store
 * too, in the same process, each in a schema of its own (dropped at the end); rounds alternate.
 *
 *   node dist/bench/records-postgres.js [--batches 60] [--rounds 3] [--postgres postgres://...] [--compare <dist folder>]
 */
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import pg from 'pg'
import { repoRoot } from '../kernel/contract/paths.js'
import type { PostgresOptions } from '../kernel/services/stores/postgres-store.js'
import type { Store } from '../kernel/services/stores/store.js'
import type { UsageRecord } from '../kernel/contract/records.js'
import { median, option } from './bench-setup.js'
import { postgresCpu } from './postgres-cpu.js'

const BATCHES = option('batches', 60)
const ROUNDS = option('rounds', 3)
const SIZE = 500
const pgIndex = process.argv.indexOf('--postgres')
const POSTGRES = pgIndex >= 0 ? process.argv[pgIndex + 1]! : 'postgres://postgres@127.0.0.1:5432/test'
const compareIndex = process.argv.indexOf('--compare')
const COMPARE = compareIndex >= 0 ? path.resolve(process.argv[compareIndex + 1]!) : undefined

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

async function open(
  dist: string,
  name: string,
): Promise<{ name: string; store: Store; application: string; schema: string; client: number[]; server: number[] }> {
  const { openPostgresStore } = (await import(
    pathToFileURL(path.join(dist, 'kernel', 'services', 'stores', 'postgres-store.js')).href
  )) as { openPostgresStore: (o: PostgresOptions) => Promise<Store> }
  const schema = `bench_records_${name.replace(/\W/g, '_')}_${process.pid}`
  const application = `sluice_${schema}`
  const url = new URL(POSTGRES)
  url.searchParams.set('application_name', application)
  return {
    name,
    store: await openPostgresStore({ url: url.toString(), schema }),
    application,
    schema,
    client: [],
    server: [],
  }
}

async function main() {
  const admin = new pg.Client({ connectionString: POSTGRES })
  await admin.connect()
  const targets = [await open(path.join(repoRoot, 'dist'), 'this build')]
  if (COMPARE) targets.push(await open(COMPARE, path.basename(path.dirname(COMPARE))))
  const backendsCpu = async (application: string) =>
    [...(await postgresCpu(admin, application)).backends.values()].reduce((a, b) => a + b, 0)
  const now = Date.now()
  const batch = (b: number) => Array.from({ length: SIZE }, (_, i) => record(b * SIZE + i, now))
  for (const t of targets) for (let b = 0; b < 10; b++) await t.store.records.insert(batch(b))
  for (let r = 0; r < ROUNDS; r++) {
    for (const t of r % 2 === 0 ? targets : [...targets].reverse()) {
      const batches = Array.from({ length: BATCHES }, (_, b) => batch(b))
      const server0 = await backendsCpu(t.application)
      const client0 = process.cpuUsage()
      for (const records of batches) await t.store.records.insert(records)
      const client = process.cpuUsage(client0)
      t.client.push((client.user + client.system) / (BATCHES * SIZE))
      t.server.push((((await backendsCpu(t.application)) - server0) * 1000) / (BATCHES * SIZE))
    }
  }
  const med = (xs: number[]) => median(xs).toFixed(2).padStart(8)
  console.log(
    `Usage records into PostgreSQL: batches of ${SIZE}, ${BATCHES} a round, ${ROUNDS} rounds, medians (µs a record; the server's in 10 ms ticks: ±${(10_000 / (BATCHES * SIZE)).toFixed(2)})\n`,
  )
  console.log(`${''.padEnd(24)}${'gateway'.padStart(8)}${'server'.padStart(8)}`)
  for (const t of targets) console.log(`${t.name.padEnd(24)}${med(t.client)}${med(t.server)}`)
  for (const t of targets) {
    await t.store.close()
    await admin.query(`DROP SCHEMA ${t.schema} CASCADE`)
  }
  await admin.end()
}

await main()
