/**
 * The API dialects against chat completions: the same question through `/v1/chat/completions`,
 * `/v1/responses` and `/v1/messages` of one gateway process, in front of one zero-latency
 * simulator process, non-streamed and streamed, interleaved rounds, medians. Prints each door's
 * requests per second and p50/p99, and its ratios to chat completions measured in the same run.
 *
 *   npm run bench -- dialects [--seconds 2] [--rounds 3] [--connections 64]
 */
import os from 'node:os'
import path from 'node:path'
import { startGatewayChild } from './gateway-child.js'
import { startChild } from './children.js'
import { runLoad, type LoadResult } from './load.js'
import { repoRoot } from '../kernel/contract/paths.js'
import { formatLoad, gatewayConfigFor, option, zeroLatencySimConfig } from './bench-setup.js'

const SECONDS = option('seconds', 2)
const ROUNDS = option('rounds', 3)
const CONNECTIONS = option('connections', 64)
const KEY = 'sk-bench'
const dist = path.join(repoRoot, 'dist')
const QUESTION = 'Benchmark question number one.'
const MAX_TOKENS = 20

/** Each door: its path and the same question in its own body (the same model, the same reply length). */
const doors: { name: string; path: string; body: (stream: boolean) => string }[] = [
  {
    name: 'chat completions',
    path: '/v1/chat/completions',
    body: (stream) =>
      JSON.stringify({
        model: 'sim-chat-instruct',
        messages: [{ role: 'user', content: QUESTION }],
        max_tokens: MAX_TOKENS,
        stream,
      }),
  },
  {
    name: 'responses',
    path: '/v1/responses',
    body: (stream) =>
      JSON.stringify({
        model: 'sim-chat-instruct',
        input: QUESTION,
        max_output_tokens: MAX_TOKENS,
        store: false,
        stream,
      }),
  },
  {
    name: 'messages',
    path: '/v1/messages',
    body: (stream) =>
      JSON.stringify({
        model: 'sim-chat-instruct',
        messages: [{ role: 'user', content: QUESTION }],
        max_tokens: MAX_TOKENS,
        stream,
      }),
  },
]

const fmt = formatLoad

async function main() {
  const sim = await startChild(path.join(dist, 'sim', 'main.js'), ['--config', zeroLatencySimConfig(), '--port', '0'])
  const configDir = gatewayConfigFor(sim.url, KEY, { connections: 256, capacity: 1000 }, [
    'gateway.yaml',
    'messages.yaml',
  ])
  const gateway = await startGatewayChild(configDir)
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }
  console.log(
    `Sluice dialects benchmark: ${os.cpus().length} cores, node ${process.version}, ${ROUNDS} interleaved rounds of ${SECONDS} s per door, ${CONNECTIONS} connections, medians; simulator at zero latency\n`,
  )
  for (const stream of [false, true]) {
    console.log(stream ? '\nstreamed' : 'non-streamed')
    for (const d of doors)
      await runLoad({
        url: gateway.url,
        path: d.path,
        body: d.body(stream),
        headers,
        connections: CONNECTIONS,
        seconds: 0.5,
        maxRequests: 2000,
      })
    const runs = new Map<string, LoadResult[]>()
    for (let round = 0; round < ROUNDS; round++) {
      for (const d of doors) {
        const r = await runLoad({
          url: gateway.url,
          path: d.path,
          body: d.body(stream),
          headers,
          connections: CONNECTIONS,
          seconds: SECONDS,
          maxRequests: 500_000,
        })
        runs.set(d.name, [...(runs.get(d.name) ?? []), r])
      }
    }
    const median = (name: string) => [...runs.get(name)!].sort((a, b) => a.rps - b.rps)[Math.floor(ROUNDS / 2)]!
    const base = median('chat completions')
    for (const d of doors) {
      const m = median(d.name)
      const ratios =
        d.name === 'chat completions'
          ? ''
          : `   rps ×${(m.rps / base.rps).toFixed(2)}  p99 ×${(m.p99 / base.p99).toFixed(2)} of chat completions`
      console.log(`${d.name.padEnd(18)} ${fmt(m)}${ratios}`)
    }
  }
  gateway.stop()
  sim.stop()
  process.exit(0)
}

await main()
