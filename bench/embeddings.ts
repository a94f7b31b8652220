/**
 * The embeddings route of the gateway against the simulator reached directly, in one run:
 * requests per second and p50/p99 latency for one short text and for a batch of 32, as floats
 * and as base64, at 64 connections and at one. Zero-latency simulator, so the figures are what
 * the gateway itself costs (auth, model, capabilities, budget, fair queue, records, the
 * upstream call and the reply's re-serialization).
 *
 *   npm run bench -- embeddings      (or: node dist/bench/embeddings.js [--seconds 2] [--rounds 3])
 *
 * With `--model use-lite`, the real embedding model instead (embeddings-use-lite.ts).
 */
import os from 'node:os'
import path from 'node:path'
import { startGatewayChild } from './gateway-child.js'
import { startChild } from './children.js'
import { runLoad, type LoadResult } from './load.js'
import { repoRoot } from '../kernel/contract/paths.js'
import { formatLoad, gatewayConfigFor, option, zeroLatencySimConfig } from './bench-setup.js'
import { benchUseLite } from './embeddings-use-lite.js'

const SECONDS = option('seconds', 2)
const ROUNDS = option('rounds', 3)
const KEY = 'sk-bench'
const dist = path.join(repoRoot, 'dist')

const fmt = formatLoad

async function main() {
  const sim = await startChild(path.join(dist, 'sim', 'main.js'), ['--config', zeroLatencySimConfig(), '--port', '0'])
  const gateway = await startGatewayChild(gatewayConfigFor(sim.url, KEY, { capacity: 1000, connections: 128 }))
  const targets = [
    { name: 'simulator direct', url: sim.url, model: 'sim-embed-384' },
    { name: 'sluice embeddings route', url: gateway.url, model: 'sim-embed' },
  ]
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }
  const batch = Array.from({ length: 32 }, (_, i) => `Passage number ${i} of the benchmark, a sentence or two long.`)
  const cases = [
    { label: 'one text, float', input: 'What is the capital of France?', format: 'float' },
    { label: 'one text, base64', input: 'What is the capital of France?', format: 'base64' },
    { label: 'batch of 32, float', input: batch, format: 'float' },
    { label: 'batch of 32, base64', input: batch, format: 'base64' },
  ]
  console.log(
    `Sluice embeddings benchmark: ${os.cpus().length} cores, node ${process.version}, ${ROUNDS} interleaved rounds of ${SECONDS} s, medians; simulator at zero latency\n`,
  )
  for (const connections of [64, 1]) {
    for (const c of cases) {
      console.log(`${c.label}, ${connections} connection${connections > 1 ? 's' : ''}`)
      const runs = new Map<string, LoadResult[]>()
      const bodyFor = (model: string) => JSON.stringify({ model, input: c.input, encoding_format: c.format })
      for (const t of targets)
        await runLoad({
          url: t.url,
          path: '/v1/embeddings',
          body: bodyFor(t.model),
          headers,
          connections,
          seconds: 0.3,
          maxRequests: 1000,
        })
      for (let round = 0; round < ROUNDS; round++) {
        for (const t of targets) {
          const r = await runLoad({
            url: t.url,
            path: '/v1/embeddings',
            body: bodyFor(t.model),
            headers,
            connections,
            seconds: SECONDS,
            maxRequests: 500_000,
          })
          runs.set(t.name, [...(runs.get(t.name) ?? []), r])
        }
      }
      const medians = targets.map((t) => [...runs.get(t.name)!].sort((a, b) => a.rps - b.rps)[Math.floor(ROUNDS / 2)]!)
      targets.forEach((t, i) => console.log(`  ${t.name.padEnd(26)} ${fmt(medians[i]!)}`))
      const [direct, through] = medians as [LoadResult, LoadResult]
      console.log(
        `  gateway / direct: rps ${(through.rps / direct.rps).toFixed(2)}, p50 +${(through.p50 - direct.p50).toFixed(3)} ms\n`,
      )
    }
  }
  gateway.stop()
  sim.stop()
  process.exit(0)
}

if (process.argv[process.argv.indexOf('--model') + 1] === 'use-lite') await benchUseLite()
else await main()
