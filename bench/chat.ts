/**
 * The chat benchmark of the performance budget (ARCHITECTURE.md): the full chat route of the
 * gateway, a bare node:http proxy, and the simulator reached directly, all in front of one
 * zero-latency simulator, in one run. Prints requests per second and p50/p99 latency for each,
 * non-streamed and streamed (20 chunks), the one-connection overhead, the gateway's peak
 * memory at 64 connections, and its memory with many idle streams.
 *
 *   npm run bench -- chat            (or: node dist/bench/chat.js [--seconds 2] [--rounds 3] [--idle 10000] [--idle-http1])
 *   [--gateway-node "<node flags>"] [--compare-node "<node flags>": a second gateway, interleaved]
 *   [--compare <dist folder>: the gateway of another build, interleaved (a before/after in one run)]
 *   [--pin: each server measured on CPU 1 alone, the load generator and the simulator on CPU 0 (issue 18's method)]
 *   [--fresh: the gateways are started anew (and warmed up) before every round, so that each round is a
 *    draw of its own of the state a process settles in (docs/performance.md, "the slow state"): the
 *    medians are then over draws, not one draw a build]
 */
import { setMaxListeners } from 'node:events'
import os from 'node:os'
import path from 'node:path'
import { Pool } from 'undici'
import { pinToCpu, processesCpuMs, startChild, type Child } from './children.js'
import { runLoad, runRate, type LoadResult } from './load.js'
import { repoRoot } from '../kernel/contract/paths.js'
import { flagsOption, formatLoad, gatewayConfigFor, option, zeroLatencySimConfig } from './bench-setup.js'
import { serverNodeFlags, startGatewayChild } from './gateway-child.js'

const SECONDS = option('seconds', 2)
const ROUNDS = option('rounds', 3)
const IDLE = option('idle', 10_000)
// --idle-http1: hold the idle streams on the measured gateway, whose backend speaks HTTP/1.1
// (one upstream socket a stream: at most about 9,900 fit under 20,000 open files a process).
const IDLE_HTTP1 = process.argv.includes('--idle-http1')
const KEY = 'sk-bench'
const dist = path.join(repoRoot, 'dist')
const PIN = process.argv.includes('--pin')
const FRESH = process.argv.includes('--fresh')

const fmt = formatLoad

/** Opens `count` streams that the simulator holds before their first token; `close` ends them. */
async function idleStreams(url: string, count: number): Promise<{ opened: number; close: () => Promise<void> }> {
  const pool = new Pool(new URL(url).origin, { connections: count })
  const abort = new AbortController()
  // One signal ends every stream, so it has one listener per stream.
  setMaxListeners(count + 10, abort.signal)
  const body = JSON.stringify({
    model: 'sim-chat-instruct',
    messages: [{ role: 'user', content: 'wait' }],
    stream: true,
    max_tokens: 5,
  })
  const opened = await Promise.allSettled(
    Array.from({ length: count }, () =>
      pool.request({
        path: '/v1/chat/completions',
        method: 'POST',
        body,
        signal: abort.signal,
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'x-sim-stall-ms': '120000' },
      }),
    ),
  )
  // What the streams that did not open got, by status or error (none, when all opened).
  const failed = new Map<string, number>()
  for (const r of opened) {
    const why = r.status === 'rejected' ? String((r.reason as Error).message) : String(r.value.statusCode)
    if (why !== '200') failed.set(why, (failed.get(why) ?? 0) + 1)
  }
  if (failed.size) console.log(`streams not opened: ${[...failed].map(([why, n]) => `${n} × ${why}`).join(', ')}`)
  return {
    opened: count - [...failed.values()].reduce((a, b) => a + b, 0),
    close: async () => {
      abort.abort()
      await pool.destroy()
    },
  }
}

async function main() {
  const sim = await startChild(path.join(dist, 'sim', 'main.js'), [
    '--config',
    zeroLatencySimConfig(IDLE + 100),
    '--port',
    '0',
  ])
  const proxy = await startChild(path.join(dist, 'bench', 'proxy.js'), ['--upstream', sim.url])
  // --profile: the gateway writes a CPU profile (.cpuprofile) to bench/profiles/ when it stops.
  const profile = process.argv.includes('--profile')
    ? ['--cpu-prof', `--cpu-prof-dir=${path.join(repoRoot, 'bench', 'profiles')}`]
    : []
  // --gateway-node "<flags>": V8/Node flags for the gateway process only (e.g. heap tuning);
  // without it, the flags the server ships with (package.json `start`).
  const gatewayNode = flagsOption('gateway-node') ?? serverNodeFlags()
  /** A gateway of this build (or of `otherBuild`) in front of the simulator, with these Node flags. */
  const startGateway = (
    nodeFlags: string[],
    otherBuild?: string,
    backend: Parameters<typeof gatewayConfigFor>[2] = { connections: IDLE + 100, capacity: IDLE + 100 },
  ) =>
    startGatewayChild(
      gatewayConfigFor(sim.url, KEY, backend),
      {},
      {
        nodeFlags,
        ...(otherBuild ? { dist: otherBuild } : {}),
      },
    )
  let gateway = await startGateway([...profile, ...gatewayNode])
  const baselineRss = gateway.rssMb()
  // --compare-node "<flags>": a second gateway with other Node flags, interleaved with the first (A/B in one run).
  const compareNode = flagsOption('compare-node')
  let compared = compareNode && (await startGateway(compareNode))

  const body = (model: string, stream: boolean) =>
    JSON.stringify({
      model,
      messages: [{ role: 'user', content: 'Benchmark question number one.' }],
      max_tokens: 20,
      ignore_eos: true,
      stream,
    })
  const targets = [
    { name: 'simulator direct', url: sim.url, model: 'sim-instruct-8b' },
    { name: 'node:http proxy', url: proxy.url, model: 'sim-instruct-8b' },
    { name: 'sluice chat route', url: gateway.url, model: 'sim-chat-instruct' },
  ]
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }
  const processOf: Record<string, Child> = {
    'simulator direct': sim,
    'node:http proxy': proxy,
    'sluice chat route': gateway,
  }
  const comparedName = `sluice ${compareNode?.join(' ')}`
  if (compared) {
    targets.push({ name: comparedName, url: compared.url, model: 'sim-chat-instruct' })
    processOf[comparedName] = compared
  }
  // --compare <dist folder>: the gateway of another build (a "before"), interleaved with this one.
  const otherDist = process.argv.includes('--compare')
    ? path.resolve(process.argv[process.argv.indexOf('--compare') + 1]!)
    : undefined
  let other = otherDist && (await startGateway(gatewayNode, otherDist))
  const otherName = 'sluice --compare build'
  if (other) {
    targets.push({ name: otherName, url: other.url, model: 'sim-chat-instruct' })
    processOf[otherName] = other
  }
  if (PIN) {
    // The servers measured take turns on CPU 1; the client side (this process, the simulator) has CPU 0.
    for (const c of [sim, { pid: process.pid }]) pinToCpu(c.pid, 0)
    for (const c of [proxy, gateway, compared, other]) if (c) pinToCpu(c.pid, 1)
  }
  /** --fresh: each gateway stopped and started anew (same flags, same build), its target pointed at it. */
  const restartGateways = async () => {
    const again = async (old: Child, name: string, nodeFlags: string[], otherBuild?: string) => {
      old.stop()
      const child = await startGateway(nodeFlags, otherBuild)
      if (PIN) pinToCpu(child.pid, 1)
      targets.find((t) => t.name === name)!.url = child.url
      processOf[name] = child
      return child
    }
    gateway = await again(gateway, 'sluice chat route', [...profile, ...gatewayNode])
    if (compared && compareNode) compared = await again(compared, comparedName, compareNode)
    if (other && otherDist) other = await again(other, otherName, gatewayNode, otherDist)
  }
  type Measured = LoadResult & { cpuPerRequest: number; mainThreadCpuPerRequest: number; clientBusy: number }
  const results: Record<string, Measured> = {}
  /**
   * Each target runs ROUNDS times, interleaved with the others, and the median run counts, so
   * a drift in what else the machine is doing touches every target alike.
   */
  const measure = async (mode: string, stream: boolean, connections: number, seconds: number, rate?: number) => {
    // Closed loop (each connection sends its next request when the last reply ended), or open
    // loop at `rate` requests a second (runRate).
    const load = (t: (typeof targets)[number], s: number, maxRequests: number) => {
      const o = {
        url: t.url,
        path: '/v1/chat/completions',
        body: body(t.model, stream),
        headers,
        connections,
        seconds: s,
      }
      return rate === undefined ? runLoad({ ...o, maxRequests }) : runRate({ ...o, rate })
    }
    const runs = new Map<string, Measured[]>()
    // A short warm-up, so JIT and connection set-up stay out of the figures.
    for (const t of targets) await load(t, 0.5, 2000)
    for (let round = 0; round < ROUNDS; round++) {
      if (FRESH && round > 0) {
        await restartGateways()
        for (const t of targets) if (t.name.startsWith('sluice')) await load(t, 0.5, 2000)
      }
      for (const t of targets) {
        const proc = processOf[t.name]!
        const [cpu0, main0] = [proc.cpuMs(), proc.mainThreadCpuMs()]
        // The client side's CPU (this load generator, and the simulator unless it is the target):
        // when pinned, its busy share of CPU 0 says whether the client or the server set the pace.
        const client = proc === sim ? [process.pid] : [process.pid, sim.pid]
        const [client0, wall0] = [processesCpuMs(client), performance.now()]
        const r = await load(t, seconds, 500_000)
        const clientBusy = (processesCpuMs(client) - client0) / (performance.now() - wall0)
        const cpuPerRequest = (proc.cpuMs() - cpu0) / Math.max(1, r.requests)
        const mainThreadCpuPerRequest = (proc.mainThreadCpuMs() - main0) / Math.max(1, r.requests)
        runs.set(t.name, [...(runs.get(t.name) ?? []), { ...r, cpuPerRequest, mainThreadCpuPerRequest, clientBusy }])
      }
    }
    for (const t of targets) {
      // At a fixed rate every run serves it: the median is by p99 there.
      const sorted = [...runs.get(t.name)!].sort((a, b) => (rate === undefined ? a.rps - b.rps : a.p99 - b.p99))
      const median = sorted[Math.floor(sorted.length / 2)]!
      const label = `${t.name} ${mode}`
      results[label] = median
      const client = PIN ? `, client core ${(100 * median.clientBusy).toFixed(0)}% busy` : ''
      console.log(
        `${label.padEnd(44)} ${fmt(median)}   ${median.cpuPerRequest.toFixed(3)} ms CPU/req (${median.mainThreadCpuPerRequest.toFixed(3)} on the main thread${client})`,
      )
    }
  }

  console.log(
    `Sluice chat benchmark: ${os.cpus().length} cores, node ${process.version}, ${ROUNDS} interleaved rounds of ${SECONDS} s per target, medians; simulator at zero latency${PIN ? '; servers pinned to CPU 1, client and simulator to CPU 0' : ''}\n`,
  )
  console.log('non-streamed, 64 connections')
  await measure('whole c64', false, 64, SECONDS)
  console.log('\nstreamed (20 chunks), 64 connections')
  await measure('stream c64', true, 64, SECONDS)
  const peak64 = gateway.peakRssMb()
  console.log('\none connection, non-streamed')
  await measure('whole c1', false, 1, SECONDS)

  const r = (k: string) => results[k]!
  const ratio = (a: number, b: number) => (a / b).toFixed(2)

  // Open loop at half the gateway's closed-loop rate: a load both servers carry, so the
  // percentiles are the latency each adds rather than concurrency ÷ throughput.
  const rate = Math.round(r('sluice chat route whole c64').rps / 2)
  console.log(`\nopen loop, non-streamed, ${rate} req/s (half the gateway's closed-loop rate), up to 64 connections`)
  await measure(`open ${rate}/s`, false, 64, SECONDS, rate)
  const open = (name: string) => r(`${name} open ${rate}/s`)
  // The budget as ARCHITECTURE.md restates it (issue 32): ratios to the bare proxy of this run.
  console.log('\nbudget (ARCHITECTURE.md)                     measured        budget')
  for (const [mode, least] of [
    ['whole', '0.60'],
    ['stream', '0.70'],
  ] as const) {
    const g = r(`sluice chat route ${mode} c64`)
    const p = r(`node:http proxy ${mode} c64`)
    console.log(
      `${mode.padEnd(7)} rps gateway / proxy                 ${ratio(g.rps, p.rps).padStart(6)}          >= ${least}`,
    )
    console.log(
      `${mode.padEnd(7)} p99 gateway / proxy                 ${ratio(g.p99, p.p99).padStart(6)}          <= 1.50`,
    )
  }
  const added = r('sluice chat route whole c1').p50 - r('node:http proxy whole c1').p50
  const overSim = r('sluice chat route whole c1').p50 - r('simulator direct whole c1').p50
  console.log(
    `one connection: p50 added over the proxy      ${added.toFixed(3).padStart(6)} ms       <= 0.15 ms  (over the simulator ${overSim.toFixed(3)} ms)`,
  )
  console.log(`peak memory at 64 connections (VmHWM)       ${peak64.toFixed(0).padStart(6)} MB       <= 150 MB`)
  console.log(`memory idle, after start (VmRSS)            ${baselineRss.toFixed(0).padStart(6)} MB       <= 100 MB`)
  console.log("\nnot the budget's figures, for reading it:")
  for (const mode of ['whole', 'stream']) {
    console.log(
      `${mode.padEnd(7)} CPU per request gateway / proxy     ${ratio(r(`sluice chat route ${mode} c64`).cpuPerRequest, r(`node:http proxy ${mode} c64`).cpuPerRequest).padStart(6)}          (a core each: rps ratio = its inverse)`,
    )
  }
  const [g, p] = [open('sluice chat route'), open('node:http proxy')]
  console.log(
    `open loop at ${rate}/s: p50 gateway / proxy      ${ratio(g.p50, p.p50).padStart(6)}   p99 ${ratio(g.p99, p.p99)}   (p99 added over the proxy ${(g.p99 - p.p99).toFixed(2)} ms)`,
  )
  if (compared) {
    for (const mode of ['whole', 'stream'])
      console.log(
        `${mode.padEnd(7)} rps ${comparedName} / proxy   ${ratio(r(`${comparedName} ${mode} c64`).rps, r(`node:http proxy ${mode} c64`).rps).padStart(6)}`,
      )
    console.log(`peak memory at 64 connections, ${comparedName}   ${compared.peakRssMb().toFixed(0).padStart(6)} MB`)
    compared.stop()
  }
  if (other) {
    for (const mode of ['whole', 'stream']) {
      const [a, b] = [r(`sluice chat route ${mode} c64`), r(`${otherName} ${mode} c64`)]
      console.log(
        `${mode.padEnd(7)} this build / --compare build: rps ${ratio(a.rps, b.rps)}, p99 ${ratio(a.p99, b.p99)}, CPU/req ${ratio(a.cpuPerRequest, b.cpuPerRequest)}, main thread's CPU/req ${ratio(a.mainThreadCpuPerRequest, b.mainThreadCpuPerRequest)}`,
      )
    }
    const c1 = r(`${otherName} whole c1`).p50 - r('node:http proxy whole c1').p50
    console.log(`one connection: p50 added over the proxy, --compare build  ${c1.toFixed(3)} ms`)
    console.log(`peak memory at 64 connections, --compare build   ${other.peakRssMb().toFixed(0).padStart(6)} MB`)
    other.stop()
  }

  if (IDLE > 0) {
    // By default a fresh gateway whose backend speaks h2c to the simulator (`http2: true`, 100
    // streams a connection): each stream then holds one socket in the gateway, not two.
    let held = gateway
    if (!IDLE_HTTP1) {
      gateway.stop()
      held = await startGateway(gatewayNode, undefined, {
        http2: true,
        connections: Math.ceil(IDLE / 100) + 1,
        capacity: IDLE + 100,
      })
    }
    const before = held.rssMb()
    const idle = await idleStreams(held.url, IDLE)
    await new Promise((res) => setTimeout(res, 1000))
    const opened = held.rssMb()
    // Held a while: a quiet gateway runs one full collection after 5 s (bin/idle-reclaim.ts).
    await new Promise((res) => setTimeout(res, 14_000))
    const during = held.rssMb()
    const perStream = (((during - before) * 1024) / Math.max(1, idle.opened)).toFixed(1)
    console.log(
      `${idle.opened} idle streams (backend over ${IDLE_HTTP1 ? 'HTTP/1.1' : 'h2c'}), held 15 s: gateway RSS ${during.toFixed(0).padStart(6)} MB   < 500 MB for 10,000  (before ${before.toFixed(0)} MB, 1 s after opening ${opened.toFixed(0)} MB${IDLE_HTTP1 ? '' : `, peak ${held.peakRssMb().toFixed(0)} MB`}; ${perStream} KB per stream)`,
    )
    await idle.close()
    gateway = held
  }
  gateway.stop()
  proxy.stop()
  sim.stop()
  // Give the gateway time to write its profile.
  if (profile.length) await new Promise((res) => setTimeout(res, 2000))
  process.exit(0)
}

await main()
