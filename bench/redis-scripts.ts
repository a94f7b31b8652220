/**
 * Redis's own CPU a request for each script of the scale-out mode, alone: the ledger's
 * reservations and settlements (the scale-out bench's three lines: two term budgets and a
 * per-minute token window) and the fair queue's enqueues and releases, sent in batches of
 * `--batch` requests made in one event-loop turn, as a gateway under load sends them. A private
 * redis-server per build; its INFO cpu before and after each batch, so the figure is Redis's
 * alone, whatever else the machine runs (at INFO's microsecond resolution, plus one INFO call).
 *
 *   node dist/bench/redis-scripts.js [--batch 16] [--batches 60] [--rounds 5] [--compare <dist folder>]
 *
 * `--compare` runs another build's ledger and queue (e.g. the commit before a change, built in
 * a worktree of its own) on a server of its own, rounds interleaved; medians of the rounds count.
 */
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { Redis } from 'ioredis'
import { repoRoot } from '../kernel/contract/paths.js'
import { createLogger } from '../kernel/contract/log.js'
import type { LedgerLine, LedgerTicket } from '../plugins/budget/ledger/ledger.js'
import type { QueueSlot } from '../plugins/fair-queue/queues/fair-queues.js'
import { median, option } from './bench-setup.js'
import { privateRedis, redisCpuUs } from './private-redis.js'

const BATCH = option('batch', 16)
const BATCHES = option('batches', 60)
const ROUNDS = option('rounds', 5)
const compareIndex = process.argv.indexOf('--compare')
const COMPARE = compareIndex >= 0 ? path.resolve(process.argv[compareIndex + 1]!) : undefined

type LedgerModule = typeof import('../plugins/budget/ledger/redis-ledger.js')
type QueuesModule = typeof import('../plugins/fair-queue/queues/redis-queues.js')
type TurnModule = typeof import('../kernel/services/redis/redis-turn.js')
const SCRIPTS = ['reserve', 'settle', 'enqueue', 'release'] as const
type Costs = Record<(typeof SCRIPTS)[number], number>

/** One build's ledger and queue on a Redis of its own. */
async function target(dist: string) {
  const ledgerModule = (await import(
    pathToFileURL(path.join(dist, 'plugins/budget/ledger/redis-ledger.js')).href
  )) as LedgerModule
  const queuesModule = (await import(
    pathToFileURL(path.join(dist, 'plugins/fair-queue/queues/redis-queues.js')).href
  )) as QueuesModule
  const turnModule = (await import(
    pathToFileURL(path.join(dist, 'kernel/services/redis/redis-turn.js')).href
  )) as TurnModule
  const server = await privateRedis()
  const redis = new Redis(server.url)
  const subscriber = new Redis(server.url)
  // One turn for both, as kernel.redis shares it.
  const turn = new turnModule.RedisTurn(redis)
  const ledger = new ledgerModule.RedisLedger(redis, 'bench:', { heartbeatMs: 0, turn })
  const queues = await queuesModule.RedisQueues.open(redis, subscriber, {
    prefix: 'bench:',
    log: createLogger({ level: 'error' }),
    heartbeatMs: 60_000,
    turn,
  })
  const close = () => {
    ledger.close()
    redis.disconnect()
    subscriber.disconnect()
    server.stop()
  }
  return { redis, ledger, queues, close }
}

const termEnd = Date.now() + 30 * 86_400_000
const lines: LedgerLine[] = [
  {
    counter: 'term:key:bench',
    limit: 1e9,
    fixed: 0.0012,
    perUnit: 0.0001,
    window: { kind: 'term', expiresAt: termEnd, seed: async () => 0 },
  },
  {
    counter: 'term:group:bench',
    limit: 1e9,
    fixed: 0.0012,
    perUnit: 0.0001,
    window: { kind: 'term', expiresAt: termEnd, seed: async () => 0 },
  },
  { counter: 'tpm:group:bench', limit: 1e12, fixed: 12, perUnit: 1, window: { kind: 'sliding', ms: 60_000 } },
]
const queued = {
  pool: 'sim',
  capacity: 1000,
  model: 'sim-chat',
  group: 'bench',
  groupWeight: 1,
  key: 'bench',
  cost: 12,
  timeoutMs: 10_000,
  anticipationMs: 0,
}

/** Redis CPU (µs) a request of each script over `batches` batches. */
async function round(t: Awaited<ReturnType<typeof target>>, batches: number): Promise<Costs> {
  const total: Costs = { reserve: 0, settle: 0, enqueue: 0, release: 0 }
  const signal = new AbortController().signal
  for (let b = 0; b < batches; b++) {
    let cpu = await redisCpuUs(t.redis)
    const lap = async (script: keyof Costs) => {
      const now = await redisCpuUs(t.redis)
      total[script] += now - cpu
      cpu = now
    }
    const reservations = await Promise.all(
      Array.from({ length: BATCH }, () => t.ledger.reserve(lines, { min: 1, max: 20 }, Date.now())),
    )
    await lap('reserve')
    const admissions = await Promise.all(Array.from({ length: BATCH }, () => t.queues.acquire({ ...queued, signal })))
    await lap('enqueue')
    const slots = admissions
      .map((a) => (a.kind === 'granted' ? a.slot : undefined))
      .filter((s): s is QueueSlot => s !== undefined)
    for (const s of slots) s.release(32)
    // Releases go out at the end of the turn and nothing awaits them: wait for their script.
    await new Promise((r) => setTimeout(r, 5))
    await lap('release')
    const tickets = reservations
      .map((r) => (r.ok ? r.ticket : undefined))
      .filter((x): x is LedgerTicket => x !== undefined)
    await Promise.all(tickets.map((ticket) => t.ledger.settle(ticket, [0.0044, 0.0044, 32], Date.now())))
    await lap('settle')
  }
  const requests = batches * BATCH
  return {
    reserve: total.reserve / requests,
    settle: total.settle / requests,
    enqueue: total.enqueue / requests,
    release: total.release / requests,
  }
}

async function main() {
  const builds: [string, string][] = [['this build', path.join(repoRoot, 'dist')]]
  if (COMPARE) builds.push([path.basename(path.dirname(COMPARE)), COMPARE])
  const targets = await Promise.all(
    builds.map(async ([name, dist]) => ({ name, t: await target(dist), rounds: [] as Costs[] })),
  )
  console.log(
    `Redis CPU a request per script, alone: batches of ${BATCH} requests, ${BATCHES} batches a round, ${ROUNDS} interleaved rounds after one of warm-up, medians\n`,
  )
  for (const { t } of targets) await round(t, 10)
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? targets : [...targets].reverse()
    for (const x of order) x.rounds.push(await round(x.t, BATCHES))
  }
  console.log(
    `${''.padEnd(24)}${SCRIPTS.map((s) => s.padStart(10)).join('')}${'all'.padStart(10)}   (µs of Redis CPU a request)`,
  )
  for (const { name, rounds } of targets) {
    const m = SCRIPTS.map((s) => median(rounds.map((x) => x[s])))
    const all = median(rounds.map((x) => SCRIPTS.reduce((sum, s) => sum + x[s], 0)))
    console.log(`${name.padEnd(24)}${m.map((v) => v.toFixed(1).padStart(10)).join('')}${all.toFixed(1).padStart(10)}`)
  }
  for (const { t } of targets) t.close()
  process.exit(0)
}

await main()
