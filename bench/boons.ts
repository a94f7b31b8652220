/**
 * The tool boons' cost: the same question to sim-chat-tools answered (a) with the boons off
 * (`x-gateway-boons: off`: the request's own steps), (b) with them on but not called (one round
 * through chat-internal), (c) with a web_search round trip (a call, a search on a SearXNG-shaped
 * server on 127.0.0.1 that answers at once, the answer: two rounds). Sequential requests, so
 * the medians are latencies, not throughput.
 *
 *   npm run bench -- boons [--runs 40] [--ttft 30] [--itl 5]
 */
import { median, option } from './bench-setup.js'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import { startGateway } from '../bin/gateway.js'
import { createLogger } from '../kernel/contract/log.js'
import { defaultConfigDir, defaultPipelinesDir } from '../kernel/contract/paths.js'

const runs = option('runs', 40)
const ttft = option('ttft', 30)
const itl = option('itl', 5)
const KEY = 'sk-bench-boons'

const engine = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      results: [{ title: 'A result', url: 'https://example.org/a', content: 'A snippet of the page.', score: 1 }],
    }),
  )
})
await new Promise<void>((resolve) => engine.listen(0, '127.0.0.1', resolve))

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-boons-'))
const configDir = path.join(root, 'config')
fs.cpSync(defaultConfigDir, configDir, { recursive: true })
const sim = path.join(configDir, 'simulator.yaml')
fs.writeFileSync(
  sim,
  fs
    .readFileSync(sim, 'utf8')
    .replace(/ttft_ms:\s*\d+/, `ttft_ms: ${ttft}`)
    .replace(/itl_ms:\s*\d+/, `itl_ms: ${itl}`)
    .replace(/jitter:\s*[\d.]+/, 'jitter: 0'),
)
const gateway = await startGateway({
  configDir,
  pipelinesDir: defaultPipelinesDir,
  dataDir: path.join(root, 'data'),
  env: { SLUICE_DEMO_KEY: KEY },
  server: {
    port: 0,
    watch: false,
    web_search: {
      provider: 'searxng',
      url: `http://127.0.0.1:${(engine.address() as AddressInfo).port}`,
      timeout_ms: 5000,
      default_results: 5,
      max_results: 10,
      local: { project: 'demo', collection: 'sample' },
    },
  },
  log: createLogger({ level: 'warn' }),
  announce: () => undefined,
})

async function ask(
  content: string,
  headers: Record<string, string> = {},
): Promise<{ ms: number; promptTokens: number }> {
  const started = performance.now()
  const res = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'sim-chat-tools', max_tokens: 20, messages: [{ role: 'user', content }] }),
  })
  const body = (await res.json()) as { usage: { prompt_tokens: number } }
  if (res.status !== 200) throw new Error(`chat answered ${res.status}: ${JSON.stringify(body)}`)
  return { ms: performance.now() - started, promptTokens: body.usage.prompt_tokens }
}

try {
  const cases = [
    {
      name: 'boons off (own steps)',
      run: (i: number) => ask(`Tell me about tides ${i}`, { 'x-gateway-boons': 'off' }),
    },
    { name: 'boons on, not called (1 round)', run: (i: number) => ask(`Tell me about tides ${i}`) },
    { name: 'web_search round trip (2 rounds + search)', run: (i: number) => ask(`Please search for tides ${i}`) },
  ]
  for (const c of cases) for (let i = 0; i < 3; i++) await c.run(i)
  console.log(
    `boons bench: sim-chat-tools, simulator ttft ${ttft} ms, itl ${itl} ms, max_tokens 20, ${runs} sequential requests each`,
  )
  const base: number[] = []
  for (const [k, c] of cases.entries()) {
    const ms: number[] = []
    let tokens = 0
    for (let i = 0; i < runs; i++) {
      const r = await c.run(1000 + i)
      ms.push(r.ms)
      tokens = r.promptTokens
    }
    if (k === 0) base.push(median(ms))
    console.log(
      `  ${c.name.padEnd(44)} median ${median(ms).toFixed(1)} ms (${(median(ms) - base[0]!).toFixed(1)} ms over off), prompt tokens ${tokens}`,
    )
  }
} finally {
  await gateway.close()
  engine.close()
}
