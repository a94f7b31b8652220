/**
 * The young generation after an idle pause: the gateway with the Node flags it ships with
 * (package.json `start`, `--min-semi-space-size`) against the same gateway with Node's
 * defaults, each started afresh, left idle, warmed, then loaded, interleaved round by round.
 *
 * Why: with the defaults, V8 shrinks the young generation while the process idles, and it
 * does not grow back under the next load: every request's objects are still alive at two
 * scavenges and are promoted, the old generation fills with them and CPU per request rises by
 * about a third (measured: docs/performance.md). bench/chat.ts never pauses, so it does not see this.
 *
 *   npm run bench -- young-generation     (or: node dist/bench/young-generation.js [--requests 20000] [--rounds 3] [--pause 3] [--against "<flags>"])
 */
import { spawn } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import { startChild, type Child } from './children.js'
import { repoRoot } from '../kernel/contract/paths.js'
import { flagsOption, gatewayConfigFor, option, zeroLatencySimConfig } from './bench-setup.js'
import { serverNodeFlags, startGatewayChild } from './gateway-child.js'

const REQUESTS = option('requests', 20_000)
const ROUNDS = option('rounds', 3)
const PAUSE_S = option('pause', 3)
const KEY = 'sk-bench'
const dist = path.join(repoRoot, 'dist')

async function main() {
  const sim = await startChild(path.join(dist, 'sim', 'main.js'), [
    '--config',
    zeroLatencySimConfig(1000),
    '--port',
    '0',
  ])
  const shipped = serverNodeFlags()
  const gateway = (flags: string[]) =>
    startGatewayChild(gatewayConfigFor(sim.url, KEY, { connections: 1000, capacity: 1000 }), {}, { nodeFlags: flags })
  // --against "<flags>": the shipped flags against these instead of Node's defaults.
  const against = flagsOption('against')
  const targets: [string, string[]][] = [
    [`shipped flags (${shipped.join(' ')})`, shipped],
    against ? [`against (${against.join(' ')})`, against] : ['Node defaults', []],
  ]
  const body = JSON.stringify({
    model: 'sim-chat-instruct',
    messages: [{ role: 'user', content: 'Benchmark question number one.' }],
    max_tokens: 20,
    ignore_eos: true,
  })
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }
  // The client is a fresh process each time too (bench/load.ts in a child): a load generator
  // whose own JIT is still cold is part of what the gateway meets after a pause.
  const freshClient = (child: Child) =>
    new Promise<{ requests: number; rps: number; cpu: number }>((resolve, reject) => {
      const script = `import { runLoad } from ${JSON.stringify(path.join(dist, 'bench', 'load.js'))}
        import fs from 'node:fs'
        const o = { url: ${JSON.stringify(child.url)}, path: '/v1/chat/completions', body: ${JSON.stringify(body)}, headers: ${JSON.stringify(headers)}, connections: 64 }
        const cpu = () => { const f = fs.readFileSync('/proc/${child.pid}/stat', 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10 }
        await runLoad({ ...o, seconds: 1, maxRequests: 3000 })
        const c0 = cpu()
        const r = await runLoad({ ...o, seconds: 60, maxRequests: ${REQUESTS} })
        console.log(JSON.stringify({ requests: r.requests, rps: r.rps, cpu: (cpu() - c0) / r.requests }))`
      const p = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
      let out = ''
      p.stdout.on('data', (d: Buffer) => (out += d.toString()))
      p.on('exit', (code) =>
        code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load client exited with ${code}`)),
      )
    })
  console.log(
    `Sluice young-generation benchmark: ${os.cpus().length} cores, node ${process.version}; per round and target: a fresh gateway, ${PAUSE_S} s idle, 3,000 requests, then ${REQUESTS} measured (64 connections)\n`,
  )
  const runs = new Map<string, { cpu: number; rps: number; peak: number }[]>()
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, flags] of targets) {
      // A gateway just started, left idle, warmed briefly, then loaded: what a deployment meets.
      const child: Child = await gateway(flags)
      await new Promise((r) => setTimeout(r, PAUSE_S * 1000))
      const r = await freshClient(child)
      runs.set(name, [...(runs.get(name) ?? []), { cpu: r.cpu, rps: r.rps, peak: child.peakRssMb() }])
      child.stop()
    }
  }
  for (const [name] of targets) {
    const all = runs.get(name)!
    const median = [...all].sort((a, b) => a.cpu - b.cpu)[Math.floor(all.length / 2)]!
    console.log(
      `${name.padEnd(52)} CPU/req ${all.map((r) => r.cpu.toFixed(3)).join(' ')} ms (median ${median.cpu.toFixed(3)})   req/s ${all.map((r) => r.rps.toFixed(0)).join(' ')}   peak RSS ${all.map((r) => r.peak.toFixed(0)).join(' ')} MB`,
    )
  }
  sim.stop()
  process.exit(0)
}

await main()
