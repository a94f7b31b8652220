/**
 * Scale-out against embedded, one process each (ARCHITECTURE.md: at most 15% of a process's
 * throughput). Two gateway processes in front of one zero-latency simulator: one with the
 * state in its own memory and SQLite records, one with Redis and PostgreSQL on loopback. The
 * bench key has a monthly budget and a per-minute token budget, so every request reserves and
 * settles. Rounds are interleaved, the order turning each round; medians count.
 *
 * Redis is a private redis-server started by this bench on a free port, so its command
 * statistics (INFO commandstats) count this gateway's commands only: the figure per request is
 * exact, whatever else the machine runs.
 *
 *   npm run bench -- scale-out [--seconds 2] [--rounds 3] [--connections 64] [--postgres postgres://...]
 *
 * `--pin` measures each gateway alone on CPU 1, with the load generator, the simulator, Redis and
 * the gateways' PostgreSQL backends on CPU 0: a process's throughput, as the budget states it
 * ("per process"), without Redis's CPU taken from the gateway's own core. The client core's busy
 * share is printed, to show whether the client side or the gateway set the pace.
 *
 * `--compare <dist folder>` adds a third target, interleaved with the others: the scale-out
 * gateway of another build (e.g. the commit before a change, built in a worktree of its own),
 * on the same Redis under another prefix, for a before/after in one run.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Redis } from 'ioredis'
import pg from 'pg'
import { pinToCpu, processesCpuMs, startChild, type Child } from './children.js'
import { privateRedis } from './private-redis.js'
import { runLoad, type LoadResult } from './load.js'
import { repoRoot } from '../kernel/contract/paths.js'
import { formatLoad, option, zeroLatencySimConfig } from './bench-setup.js'
import { scaleOutConfig } from './scale-out-config.js'
import { serverNodeFlags, startGatewayChild } from './gateway-child.js'
import { postgresCpu } from './postgres-cpu.js'

const SECONDS = option('seconds', 2)
const ROUNDS = option('rounds', 3)
const CONNECTIONS = option('connections', 64)
const COUNTED = option('counted', 5000)
/** stores.records_flush_ms of the bench config (the default): the longest a record waits to be written. */
const RECORDS_FLUSH_MS = 1000
const KEY = 'sk-bench'
const dist = path.join(repoRoot, 'dist')
const pgIndex = process.argv.indexOf('--postgres')
const POSTGRES = pgIndex >= 0 ? process.argv[pgIndex + 1]! : 'postgres://postgres@127.0.0.1:5432/test'
const PIN = process.argv.includes('--pin')
const compareIndex = process.argv.indexOf('--compare')
const COMPARE = compareIndex >= 0 ? path.resolve(process.argv[compareIndex + 1]!) : undefined

/** Keys of commandStats that are not commands. */
const NOT_COMMANDS = new Set(['cpu ms', 'script ms', 'net in', 'net out', 'reads', 'writes'])

/**
 * Calls per command, the server's own CPU time (ms) under 'cpu ms', the time spent inside
 * scripts under 'script ms', bytes in and out under 'net in' and 'net out'.
 */
async function commandStats(redis: Redis): Promise<Map<string, number>> {
  const text = (await redis.info('commandstats')) + (await redis.info('cpu'))
  const netText = await redis.info('stats')
  const stats = new Map<string, number>()
  for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) stats.set(m[1]!, Number(m[2]))
  // Time inside the scripts (their commands included), as Redis counts it per call.
  const scriptUsec = [...text.matchAll(/^cmdstat_(?:evalsha|eval):calls=\d+,usec=(\d+)/gm)].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  )
  stats.set('script ms', scriptUsec / 1000)
  const cpu = (field: string) => Number(new RegExp(`^${field}:([\\d.]+)`, 'm').exec(text)?.[1] ?? 0)
  stats.set('cpu ms', (cpu('used_cpu_user') + cpu('used_cpu_sys')) * 1000)
  const stat = (field: string) => Number(new RegExp(`^${field}:(\\d+)`, 'm').exec(netText)?.[1] ?? 0)
  stats.set('net in', stat('total_net_input_bytes'))
  stats.set('net out', stat('total_net_output_bytes'))
  stats.set('reads', stat('total_reads_processed'))
  stats.set('writes', stat('total_writes_processed'))
  return stats
}

/** Read and write system calls of a process so far (/proc/<pid>/io: sockets included). */
function syscalls(pid: number): { reads: number; writes: number } {
  const text = fs.readFileSync(`/proc/${pid}/io`, 'utf8')
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)`, 'm').exec(text)?.[1] ?? 0)
  return { reads: field('syscr'), writes: field('syscw') }
}

/**
 * --pin: the client side (this process, the simulator, Redis and every PostgreSQL backend of the
 * bench's gateways) on CPU 0, the gateways on CPU 1. Returns the client side's pids.
 */
async function pinClientSide(pgAdmin: pg.Client, pids: number[], gateways: number[]): Promise<number[]> {
  const backends = await Promise.all(['scaleout_', 'compare_'].map((p) => postgresCpu(pgAdmin, `sluice_bench_${p}`)))
  const client = [...pids, ...backends.flatMap((b) => [...b.backends.keys()])]
  for (const pid of client) pinToCpu(pid, 0)
  for (const pid of gateways) pinToCpu(pid, 1)
  return client
}

async function main() {
  const redis = await privateRedis()
  const sim = await startChild(path.join(dist, 'sim', 'main.js'), [
    '--config',
    zeroLatencySimConfig(2000),
    '--port',
    '0',
  ])
  const embedded = await startGatewayChild(scaleOutConfig(sim.url, KEY))
  // --profile: the scale-out gateway writes a CPU profile to bench/profiles/ when it stops.
  const profile = process.argv.includes('--profile')
    ? ['--cpu-prof', `--cpu-prof-dir=${path.join(repoRoot, 'bench', 'profiles')}`]
    : []
  const scaled = await startGatewayChild(
    scaleOutConfig(sim.url, KEY, { redis: redis.url, postgres: POSTGRES, prefix: 'scaleout_' }),
    {},
    { nodeFlags: [...serverNodeFlags(), ...profile] },
  )
  const admin = new Redis(redis.url)
  const pgAdmin = new pg.Client({ connectionString: POSTGRES })
  await pgAdmin.connect()
  const body = JSON.stringify({
    model: 'sim-chat-instruct',
    messages: [{ role: 'user', content: 'Benchmark question number one.' }],
    max_tokens: 20,
    ignore_eos: true,
  })
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }
  const targets: [string, Child][] = [
    ['embedded', embedded],
    ['scale-out (Redis + PostgreSQL)', scaled],
  ]
  if (COMPARE) {
    const other = await startGatewayChild(
      scaleOutConfig(sim.url, KEY, { redis: redis.url, postgres: POSTGRES, prefix: 'compare_' }),
      {},
      { dist: COMPARE },
    )
    targets.push([`scale-out, ${path.basename(path.dirname(COMPARE))}`, other])
  }
  console.log(
    `Sluice scale-out benchmark: ${os.cpus().length} cores, node ${process.version}, ${ROUNDS} interleaved rounds of ${SECONDS} s, ${CONNECTIONS} connections, medians; key with a term budget and a token window${PIN ? '; gateways pinned to CPU 1, client, simulator, Redis and PostgreSQL backends to CPU 0' : ''}\n`,
  )

  for (const [, child] of targets)
    await runLoad({
      url: child.url,
      path: '/v1/chat/completions',
      body,
      headers,
      connections: CONNECTIONS,
      seconds: 0.5,
      maxRequests: 2000,
    })
  // After the warm-up, so that the gateways' PostgreSQL pools have opened their backends.
  const clientSide = PIN
    ? await pinClientSide(
        pgAdmin,
        [sim.pid, process.pid, redis.pid],
        targets.map(([, c]) => c.pid),
      )
    : []
  const runs = new Map<string, (LoadResult & { cpu: number; clientBusy: number })[]>()
  for (let round = 0; round < ROUNDS; round++) {
    // The order turns each round: a target that always ran right after another (embedded's
    // records still being written, the other's PostgreSQL backlog) would always share its cores.
    const order = [...targets.slice(round % targets.length), ...targets.slice(0, round % targets.length)]
    for (const [name, child] of order) {
      const [cpu0, client0, wall0] = [child.cpuMs(), processesCpuMs(clientSide), performance.now()]
      const r = await runLoad({
        url: child.url,
        path: '/v1/chat/completions',
        body,
        headers,
        connections: CONNECTIONS,
        seconds: SECONDS,
        maxRequests: 500_000,
      })
      const clientBusy = (processesCpuMs(clientSide) - client0) / (performance.now() - wall0)
      runs.set(name, [
        ...(runs.get(name) ?? []),
        { ...r, cpu: (child.cpuMs() - cpu0) / Math.max(1, r.requests), clientBusy },
      ])
    }
  }
  const medians = new Map<string, LoadResult & { cpu: number; clientBusy: number }>()
  for (const [name] of targets) {
    const sorted = [...runs.get(name)!].sort((a, b) => a.rps - b.rps)
    const m = sorted[Math.floor(sorted.length / 2)]!
    medians.set(name, m)
    console.log(
      `${name.padEnd(34)} ${formatLoad(m)}   ${m.cpu.toFixed(3)} ms CPU/req${PIN ? `, client core ${(100 * m.clientBusy).toFixed(0)}% busy` : ''}`,
    )
  }
  const e = medians.get('embedded')!
  const s = medians.get('scale-out (Redis + PostgreSQL)')!
  console.log(`\nscale-out req/s ÷ embedded        ${(s.rps / e.rps).toFixed(2)}   (budget >= 0.85)`)
  console.log(`scale-out CPU/req ÷ embedded      ${(s.cpu / e.cpu).toFixed(2)}`)
  if (COMPARE) {
    const c = medians.get(targets[2]![0])!
    console.log(
      `${targets[2]![0]} req/s ÷ embedded   ${(c.rps / e.rps).toFixed(2)};  CPU/req ÷ embedded ${(c.cpu / e.cpu).toFixed(2)}`,
    )
  }

  // Redis commands per request: a fixed number of requests per scale-out target (the compared
  // build too), the private server's statistics before and after.
  const prefixes = ['scaleout_', 'compare_']
  for (const [t, [name, child]] of targets.slice(1).entries()) {
    const application = `sluice_bench_${prefixes[t]}`
    // Records still being written from the rounds before: let them land first.
    await new Promise((res) => setTimeout(res, RECORDS_FLUSH_MS + 200))
    const pg0 = await postgresCpu(pgAdmin, application)
    const before = await commandStats(admin)
    const cpu0 = child.cpuMs()
    const io0 = syscalls(child.pid)
    const r = await runLoad({
      url: child.url,
      path: '/v1/chat/completions',
      body,
      headers,
      connections: CONNECTIONS,
      seconds: 60,
      maxRequests: COUNTED,
    })
    // Settlements and releases run after the replies: let them land.
    await new Promise((res) => setTimeout(res, 300))
    const after = await commandStats(admin)
    const gatewayMs = child.cpuMs() - cpu0
    // The last records are written by the records timer: wait for it before reading PostgreSQL's CPU.
    await new Promise((res) => setTimeout(res, RECORDS_FLUSH_MS + 200))
    const pg1 = await postgresCpu(pgAdmin, application)
    const backendMs = [...pg1.backends].reduce((sum, [pid, ms]) => sum + ms - (pg0.backends.get(pid) ?? 0), 0)
    const io = syscalls(child.pid)
    const per = (field: string) => (after.get(field)! - before.get(field)!) / r.requests
    const delta = [...after]
      .map(([cmd, n]) => [cmd, n - (before.get(cmd) ?? 0)] as const)
      .filter(([cmd, n]) => n > 0 && cmd !== 'info' && !NOT_COMMANDS.has(cmd))
    const total = delta.reduce((sum, [, n]) => sum + n, 0)
    console.log(
      `\n${name}: Redis commands per request over ${r.requests} requests (INFO commandstats, heartbeats included): ${(total / r.requests).toFixed(2)}`,
    )
    console.log(
      `Redis server CPU per request: ${per('cpu ms').toFixed(3)} ms (inside scripts ${per('script ms').toFixed(3)} ms); bytes per request to Redis ${per('net in').toFixed(0)}, from Redis ${per('net out').toFixed(0)}`,
    )
    console.log(
      `Redis reads and writes per request: ${per('reads').toFixed(2)}, ${per('writes').toFixed(2)}; the gateway's read and write calls per request: ${((io.reads - io0.reads) / r.requests).toFixed(2)}, ${((io.writes - io0.writes) / r.requests).toFixed(2)}`,
    )
    console.log(`gateway CPU per request: ${(gatewayMs / r.requests).toFixed(3)} ms`)
    console.log(
      `PostgreSQL CPU per request: ${(backendMs / r.requests).toFixed(3)} ms in this gateway's ${pg1.backends.size} backends, ${((pg1.all - pg0.all) / r.requests).toFixed(3)} ms in all postgres processes (10 ms ticks: ±${((10 * Math.max(1, pg1.backends.size)) / r.requests).toFixed(3)} ms)`,
    )
    // The budget's figure: every process a scale-out request costs, against the embedded gateway alone.
    // With the gateway's CPU of this counted run, and (the larger, as a rule) of the timed rounds' median.
    const others = backendMs / r.requests + per('cpu ms')
    const [counted, timed] = [gatewayMs / r.requests + others, medians.get(name)!.cpu + others]
    console.log(
      `total CPU per request (gateway + Redis + PostgreSQL) ÷ embedded gateway: ${(counted / e.cpu).toFixed(2)} (${counted.toFixed(3)} ÷ ${e.cpu.toFixed(3)} ms); with the rounds' gateway CPU ${(timed / e.cpu).toFixed(2)}   (budget <= 1.25)`,
    )
    for (const [cmd, n] of delta.sort((a, b) => b[1] - a[1]))
      console.log(`  ${cmd.padEnd(24)} ${(n / r.requests).toFixed(2)}`)
  }

  admin.disconnect()
  await pgAdmin.end()
  for (const [, child] of targets) child.stop()
  sim.stop()
  // Give the gateway time to write its profile before Redis goes.
  await new Promise((res) => setTimeout(res, profile.length ? 2000 : 500))
  redis.stop()
  process.exit(0)
}

await main()
