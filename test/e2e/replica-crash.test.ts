/**
 * A replica killed (SIGKILL) with queue slots, waiters and budget reservations held, among
 * three Sluice processes sharing Redis and PostgreSQL: once its leases run out the two others run
 * the pool at its full capacity, and the tenant's term budget holds exactly what the records say
 * (nothing of the dead replica's reservations). Then `npm run reconcile` runs beside them.
 */
import * as assert from 'uvu/assert'
import { spawn } from 'node:child_process'
import path from 'node:path'
import pg from 'pg'
import { Redis } from 'ioredis'
import { prepareDeployment } from '../support/gateway.js'
import { keysFile, modelsWith, serverWith } from '../support/deployment-files.js'
import { startReplica, type Replica } from '../support/replica.js'
import { POSTGRES_URL, REDIS_URL, uniqueName } from '../support/services.js'
import { suiteNeeding } from '../support/needs-server.js'
import { failIfStuck, until } from '../support/stuck.js'
import { RedisLedger } from '../../plugins/budget/ledger/redis-ledger.js'
import { RedisTurn } from '../../kernel/services/redis/redis-turn.js'
import { openPostgresStore } from '../../kernel/services/stores/postgres-store.js'
import { repoRoot } from '../../kernel/contract/paths.js'

const test = suiteNeeding(['redis', 'postgres'], 'e2e a replica killed among three (Redis + PostgreSQL)')
const LEASE = 1500
const CAPACITY = 4
const ITL = 50
const schema = uniqueName('sluice_crash')
const prefix = `${uniqueName('sluice-crash')}:`

const files = {
  'config/models.yaml': modelsWith({
    backends: { narrow: { url: 'embedded', capacity: CAPACITY } },
    models: [
      {
        id: 'sim-narrow',
        model_type: 'chat',
        backend: 'narrow',
        served_name: 'sim-instruct-8b',
        reported_name: 'sim-narrow',
        context_window: 32768,
        prices: { prompt: 1_000_000, completion: 2_000_000 },
      },
    ],
  }),
  'config/keys.yaml': keysFile({}, [
    { id: 'tenant', group: 'demo', secret: 'sk-tenant', budget: { amount: 100_000, term: 'month' } },
  ]),
  'config/server.yaml': serverWith({
    stores: {
      redis_url: REDIS_URL,
      redis_prefix: prefix,
      postgres_url: POSTGRES_URL,
      postgres_schema: schema,
      records_flush_ms: 100,
      lease_ms: LEASE,
    },
  }),
}

let replicas: Replica[] = []
let redis: Redis | undefined
let deployment: ReturnType<typeof prepareDeployment>

test.before(async () => {
  // Set first, so that the cleanup runs even if a replica fails to start.
  redis = new Redis(REDIS_URL)
  deployment = prepareDeployment({ files, simulatorLatency: { ttft_ms: 0, itl_ms: ITL } })
  const env = { SLUICE_LOG_LEVEL: 'warn' }
  // The first creates the schema; the two others start together.
  // Each replica a data folder of its own (startReplica's default), as separate hosts would have.
  const { configDir, pipelinesDir } = deployment
  replicas = [await startReplica({ configDir, pipelinesDir, env })]
  replicas.push(
    ...(await Promise.all([
      startReplica({ configDir, pipelinesDir, env }),
      startReplica({ configDir, pipelinesDir, env }),
    ])),
  )
})

test.after(async () => {
  for (const r of replicas) await r.stop().catch(() => undefined)
  if (!redis) return
  const stale = await redis.keys(`${prefix}*`)
  if (stale.length > 0) await redis.del(...stale)
  await redis.quit()
  const client = new pg.Client({ connectionString: POSTGRES_URL })
  await client.connect()
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  await client.end()
})

/** A streamed chat request of `tokens` reply tokens (ITL ms each); resolves when its first chunk came, then when it ended. */
function stream(url: string, tokens: number): { first: Promise<number>; done: Promise<number> } {
  let onFirst: (at: number) => void = () => undefined
  const first = new Promise<number>((resolve) => (onFirst = resolve))
  const done = (async () => {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-tenant', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'sim-narrow',
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: tokens,
        ignore_eos: true,
        stream: true,
      }),
    })
    assert.is(res.status, 200)
    for await (const _ of res.body!) {
      onFirst(Date.now())
    }
    return Date.now()
  })()
  return { first, done }
}

test("the others run the pool at full capacity once the dead replica's leases end, and the budget holds only what the records say", async () => {
  assert.ok(redis && replicas.length === 3, 'three replicas started')
  const [victim, ...survivors] = replicas as [Replica, Replica, Replica]
  const queue = `${prefix}q:narrow:`
  // The victim holds every slot and two waiters, each with a budget reservation.
  for (let i = 0; i < CAPACITY + 2; i++) void stream(victim.url, 200).done.catch(() => undefined)
  await until(
    'the victim to hold the pool',
    async () => (await redis!.zcard(`${queue}run`)) === CAPACITY && (await redis!.hlen(`${queue}waiters`)) === 2,
  )
  const [counter] = (await redis.keys(`${prefix}budget:term:key:tenant:*`)).filter((k) => /:\d{4}-\d{2}$/.test(k))
  assert.ok(counter, 'the term counter exists')
  const name = counter!.slice(prefix.length)
  const ledger = new RedisLedger(redis, prefix, { heartbeatMs: 0, turn: new RedisTurn(redis) })
  const window = { kind: 'term', expiresAt: 0 } as const
  const heldBefore = await ledger.used(name, window, Date.now())
  assert.ok(heldBefore > 0, 'the reservations count')

  await victim.kill()
  const killed = Date.now()
  const requests = Array.from({ length: CAPACITY }, (_, i) => stream(survivors[i % 2]!.url, 30))
  // The dead replica's slots come back when its leases run out (the guard only catches slots never given back).
  const started = await failIfStuck(
    Promise.all(requests.map((r) => r.first)),
    `the ${CAPACITY} requests after the kill to start`,
  )
  const ended = await Promise.all(requests.map((r) => r.done))
  const firsts = started.map((t) => t - killed)
  const ends = ended.map((t) => t - killed)
  assert.ok(
    Math.max(...started) < Math.min(...ended),
    `all ${CAPACITY} ran at once, not two after two: each started before any ended (starts ${firsts.join(', ')} ms, ends ${ends.join(', ')} ms after the kill)`,
  )

  const store = await openPostgresStore({ url: POSTGRES_URL, schema })
  try {
    // The survivors' records reach PostgreSQL in their next batch.
    await until(
      `the ${CAPACITY} records in PostgreSQL`,
      async () => (await store.records.list({ from: 0, to: Date.now() + 1 }, 100)).length >= CAPACITY,
    )
    const recorded = await store.records.spent({ keyId: 'tenant' }, 0)
    const held = await ledger.used(name, window, Date.now())
    assert.ok(recorded > 0)
    assert.ok(
      Math.abs(held - recorded) < 1e-9,
      `the budget holds ${held}: the records say ${recorded} (the dead replica's reservations were ${heldBefore})`,
    )
    process.stdout.write(
      `\n  kill: ${CAPACITY} slots and ${CAPACITY + 2} reservations held; the next ${CAPACITY} requests started ${firsts.join(', ')} ms after it (lease ${LEASE} ms), ended by ${Math.max(...ends)} ms; budget ${held} = records ${recorded}\n`,
    )
  } finally {
    await store.close()
  }

  // The command, beside running replicas: nothing to change (every settlement has its record).
  const out = await new Promise<{ code: number | null; text: string }>((resolve) => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'dist', 'bin', 'reconcile.js'), '--lag-ms', '0'], {
      env: { PATH: process.env.PATH, SLUICE_CONFIG: deployment.configDir },
    })
    let text = ''
    child.stdout.on('data', (c: Buffer) => (text += c.toString()))
    child.stderr.on('data', (c: Buffer) => (text += c.toString()))
    child.once('exit', (code) => resolve({ code, text }))
  })
  assert.is(out.code, 0, out.text)
  assert.match(out.text, /reconciled 1 term counters .*: 0 changed/)
})

test.run()
