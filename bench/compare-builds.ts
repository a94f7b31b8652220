/**
 * A before/after of the chat route at a fixed count: this build's gateway and another build's
 * (a dist folder, as chat.ts --compare takes), each in its own process with its own data folder,
 * loaded with the same number of requests at 64 connections, interleaved round by round. Prints
 * each round's p99 and CPU per request, split into the main thread (the event loop) and the
 * process's other threads (worker threads, V8's GC helpers, libuv's pool), and the median of
 * the per-round ratios: steadier than chat.ts's timed rounds on a busy machine, since both
 * builds serve the same work and a drift touches neighbouring rounds alike.
 *
 * `--fresh 1`: both gateways are started anew every round (5,000 requests of warm-up each). A
 * gateway process settles into one of two speeds for its life (V8's young generation; see
 * docs/performance.md), so with one process a build, a comparison can measure the draw rather
 * than the builds; fresh processes each round make the median a median over draws.
 *
 * `--gc 1` (with `--fresh 1`): each gateway also samples its allocations and counts its
 * collections (bench/alloc-sampling.ts); each round prints its scavenges and mark-compacts, and
 * the profiles are left in bench/profiles/ for `node dist/bench/alloc-summary.js`. A process in the
 * slow state promotes most of what its requests allocate: three or more mark-compacts in a
 * round of 20,000 against one.
 *
 * `--scale-out 1`: both gateways in scale-out mode (Redis and PostgreSQL, the key with a term
 * budget and a token window, as scale-out.ts), each under its own prefix on one private
 * redis-server; each round also prints Redis's CPU a request (INFO cpu around the round).
 *
 *   npm run bench -- compare-builds --compare <dist folder>
 *   (or: node dist/bench/compare-builds.js --compare <dist folder> [--requests 20000] [--rounds 9] [--stream 1] [--scale-out 1] [--fresh 1])
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { startChild, type Child } from './children.js'
import { runLoad } from './load.js'
import { repoRoot } from '../kernel/contract/paths.js'
import { gatewayConfigFor, median, option, zeroLatencySimConfig } from './bench-setup.js'
import { serverNodeFlags, startGatewayChild } from './gateway-child.js'
import { privateRedis, redisCpuUs } from './private-redis.js'
import { scaleOutConfig } from './scale-out-config.js'
import { Redis } from 'ioredis'

const REQUESTS = option('requests', 20_000)
const ROUNDS = option('rounds', 9)
const STREAM = option('stream', 0) === 1
const SCALE_OUT = option('scale-out', 0) === 1
const FRESH = option('fresh', 0) === 1
const GC = option('gc', 0) === 1 && FRESH
const PROFILES = path.join(repoRoot, 'bench', 'profiles')
const POSTGRES = 'postgres://postgres@127.0.0.1:5432/test'
const KEY = 'sk-bench'

interface Round {
  p99: number
  rps: number
  total: number
  main: number
  others: number
  redis: number
}

async function main() {
  const at = process.argv.indexOf('--compare')
  if (at === -1) throw new Error('usage: compare-builds --compare <dist folder of the other build>')
  const otherDist = path.resolve(process.argv[at + 1]!)
  const sim = await startChild(path.join(repoRoot, 'dist', 'sim', 'main.js'), [
    '--config',
    zeroLatencySimConfig(1000),
    '--port',
    '0',
  ])
  const redis = SCALE_OUT ? await privateRedis() : undefined
  const admin = redis && new Redis(redis.url)
  const redisUs = async () => (admin ? redisCpuUs(admin) : 0)
  const configFor = (prefix: string) =>
    redis
      ? scaleOutConfig(sim.url, KEY, { redis: redis.url, postgres: POSTGRES, prefix })
      : gatewayConfigFor(sim.url, KEY, { connections: 200, capacity: 200 })
  const profileOf = (prefix: string) => path.join(PROFILES, `alloc-${prefix}.heapprofile`)
  const gateway = (dist: string, prefix: string): Promise<Child> =>
    GC
      ? startGatewayChild(
          configFor(prefix),
          { SLUICE_ALLOC_PROFILE: profileOf(prefix) },
          {
            dist,
            nodeFlags: [...serverNodeFlags(), `--import=${path.join(repoRoot, 'dist', 'bench', 'alloc-sampling.js')}`],
          },
        )
      : startGatewayChild(configFor(prefix), {}, { dist })
  if (GC) fs.mkdirSync(PROFILES, { recursive: true })
  const dists: [string, string, string][] = [
    ['this build', path.join(repoRoot, 'dist'), 'this_'],
    ['--compare build', otherDist, 'other_'],
  ]
  const start = (round: number) =>
    Promise.all(
      dists.map(async ([name, dist, prefix]) => [name, await gateway(dist, `${prefix}${round}_`)] as [string, Child]),
    )
  let builds = await start(0)
  const body = JSON.stringify({
    model: 'sim-chat-instruct',
    messages: [{ role: 'user', content: 'Benchmark question number one.' }],
    max_tokens: 20,
    ignore_eos: true,
    stream: STREAM,
  })
  const load = (child: Child, maxRequests: number) =>
    runLoad({
      url: child.url,
      path: '/v1/chat/completions',
      body,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      connections: 64,
      seconds: 120,
      maxRequests,
    })
  console.log(
    `Sluice build comparison: ${os.cpus().length} cores, node ${process.version}; ${ROUNDS} interleaved rounds of ${REQUESTS} ${STREAM ? 'streamed' : 'non-streamed'} requests per build at 64 connections${SCALE_OUT ? ', scale-out mode (Redis + PostgreSQL)' : ''}${FRESH ? ', fresh processes every round' : ''}\n`,
  )
  const rounds = new Map<string, Round[]>(builds.map(([name]) => [name, []]))
  const slowRounds = new Map<string, number>(builds.map(([name]) => [name, 0]))
  // Written by each gateway as it exits (bench/alloc-sampling.ts).
  const printCollections = async (round: number) => {
    for (const [name, , prefix] of dists) {
      const file = `${profileOf(`${prefix}${round}_`)}.gc.json`
      for (let i = 0; i < 100 && !fs.existsSync(file); i++) await new Promise((res) => setTimeout(res, 100))
      if (!fs.existsSync(file)) continue
      const gc = JSON.parse(fs.readFileSync(file, 'utf8')) as { scavenges: number; markCompacts: number }
      if (gc.markCompacts >= 3) slowRounds.set(name, slowRounds.get(name)! + 1)
      console.log(`round ${round} ${name.padEnd(16)} ${gc.scavenges} scavenges, ${gc.markCompacts} mark-compacts`)
    }
  }
  for (let round = 0; round < ROUNDS; round++) {
    if (FRESH && round > 0) {
      for (const [, child] of builds) child.stop()
      if (GC) await printCollections(round - 1)
      builds = await start(round)
    }
    if (FRESH || round === 0) for (const [, child] of builds) await load(child, 5000)
    for (const [name, child] of builds) {
      const [cpu0, main0, redis0] = [child.cpuMs(), child.mainThreadCpuMs(), await redisUs()]
      const r = await load(child, REQUESTS)
      const main = (child.mainThreadCpuMs() - main0) / r.requests
      const others = (child.cpuMs() - cpu0) / r.requests - main
      const redisMs = ((await redisUs()) - redis0) / 1000 / r.requests
      rounds.get(name)!.push({ p99: r.p99, rps: r.rps, total: main + others, main, others, redis: redisMs })
      console.log(
        `round ${round} ${name.padEnd(16)} ${r.rps.toFixed(0).padStart(6)} req/s  p99 ${r.p99.toFixed(2).padStart(6)} ms   CPU/req ${(main + others).toFixed(4)} ms: main thread ${main.toFixed(4)}, other threads ${others.toFixed(4)}${redis ? `; Redis ${redisMs.toFixed(4)}` : ''}`,
      )
    }
  }
  const [a, b] = builds.map(([name]) => rounds.get(name)!) as [Round[], Round[]]
  console.log('\nmedians                     this build  --compare build   median of per-round ratios')
  for (const k of ['rps', 'p99', 'total', 'main', 'others', ...(redis ? (['redis'] as const) : [])] as const) {
    const label = {
      rps: 'req/s',
      p99: 'p99 (ms)',
      total: 'CPU/req (ms)',
      main: 'main thread CPU/req',
      others: 'other threads CPU/req',
      redis: 'Redis CPU/req (ms)',
    }[k]
    console.log(
      `${label.padEnd(26)} ${median(a.map((r) => r[k]))
        .toFixed(4)
        .padStart(10)}  ${median(b.map((r) => r[k]))
        .toFixed(4)
        .padStart(15)}   ${median(a.map((r, i) => r[k] / b[i]![k])).toFixed(3)}`,
    )
  }
  admin?.disconnect()
  for (const [, child] of builds) child.stop()
  if (GC) {
    await printCollections(ROUNDS - 1)
    for (const [name, n] of slowRounds)
      console.log(`${name}: ${n} of ${ROUNDS} rounds in the slow state (3 or more mark-compacts)`)
  }
  await new Promise((res) => setTimeout(res, 500))
  redis?.stop()
  process.exit(0)
}

await main()
