/**
 * A before/after of the chat route at a fixed count: this build's gateway and another build's
 * (a dist folder, as chat.ts --compare takes), each in its own process with its own data folder,
 * loaded with the same number of requests at 64 connections, interleaved round by round. Prints
 * each round's p99 and CPU per request, split into the main thread (the event loop) and the
 * process's other threads (worker threads, V8's GC helpers, libuv's pool), and the median of
 * the per-round ratios: steadier than chat.ts's timed rounds on a busy machine, since both
 * builds serve the same work and a drift touches neighbouring rounds alike.
 *
 *   npm run bench -- compare-builds --compare <dist folder>
 *   (or: node dist/bench/compare-builds.js --compare <dist folder> [--requests 20000] [--rounds 9] [--stream 1])
 */
import os from 'node:os'
import path from 'node:path'
import { startChild, type Child } from './children.js'
import { runLoad } from './load.js'
import { repoRoot } from '../kernel/paths.js'
import { gatewayConfigFor, median, option, zeroLatencySimConfig } from './bench-setup.js'
import { startGatewayChild } from './gateway-child.js'

const REQUESTS = option('requests', 20_000)
const ROUNDS = option('rounds', 9)
const STREAM = option('stream', 0) === 1
const KEY = 'sk-bench'

interface Round {
  p99: number
  rps: number
  total: number
  main: number
  others: number
}


async function main() {
  const at = process.argv.indexOf('--compare')
  if (at === -1) throw new Error('usage: compare-builds --compare <dist folder of the other build>')
  const otherDist = path.resolve(process.argv[at + 1]!)
  const sim = await startChild(path.join(repoRoot, 'dist', 'sim', 'main.js'), ['--config', zeroLatencySimConfig(1000), '--port', '0'])
  const gateway = (dist: string): Promise<Child> => startGatewayChild(gatewayConfigFor(sim.url, KEY, { connections: 200, capacity: 200 }), {}, { dist })
  const builds: [string, Child][] = [
    ['this build', await gateway(path.join(repoRoot, 'dist'))],
    ['--compare build', await gateway(otherDist)],
  ]
  const body = JSON.stringify({ model: 'sim-chat-instruct', messages: [{ role: 'user', content: 'Benchmark question number one.' }], max_tokens: 20, ignore_eos: true, stream: STREAM })
  const load = (child: Child, maxRequests: number) => runLoad({ url: child.url, path: '/v1/chat/completions', body, headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, connections: 64, seconds: 120, maxRequests })
  console.log(`Sluice build comparison: ${os.cpus().length} cores, node ${process.version}; ${ROUNDS} interleaved rounds of ${REQUESTS} ${STREAM ? 'streamed' : 'non-streamed'} requests per build at 64 connections\n`)
  for (const [, child] of builds) await load(child, 5000)
  const rounds = new Map<string, Round[]>(builds.map(([name]) => [name, []]))
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, child] of builds) {
      const [cpu0, main0] = [child.cpuMs(), child.mainThreadCpuMs()]
      const r = await load(child, REQUESTS)
      const main = (child.mainThreadCpuMs() - main0) / r.requests
      const others = (child.cpuMs() - cpu0) / r.requests - main
      rounds.get(name)!.push({ p99: r.p99, rps: r.rps, total: main + others, main, others })
      console.log(`round ${round} ${name.padEnd(16)} p99 ${r.p99.toFixed(2).padStart(6)} ms   CPU/req ${(main + others).toFixed(4)} ms: main thread ${main.toFixed(4)}, other threads ${others.toFixed(4)}`)
    }
  }
  const [a, b] = builds.map(([name]) => rounds.get(name)!) as [Round[], Round[]]
  console.log('\nmedians                     this build  --compare build   median of per-round ratios')
  for (const k of ['p99', 'total', 'main', 'others'] as const) {
    const label = { p99: 'p99 (ms)', total: 'CPU/req (ms)', main: 'main thread CPU/req', others: 'other threads CPU/req' }[k]
    console.log(`${label.padEnd(26)} ${median(a.map((r) => r[k])).toFixed(4).padStart(10)}  ${median(b.map((r) => r[k])).toFixed(4).padStart(15)}   ${median(a.map((r, i) => r[k] / b[i]![k])).toFixed(3)}`)
  }
  process.exit(0)
}

await main()
