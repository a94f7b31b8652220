/**
 * Verdicts benchmark: a request of 32 questions against a request of one, through the real
 * gateway and the simulator at a realistic latency with capacity for every question at once.
 * Prints both latencies, their ratio (the architecture's budget: at most 2), and the prompt
 * tokens the simulator reported as cached (the shared prefix of state and instructions).
 *
 *   npx tsc -p tsconfig.json && node dist/bench/verdicts.js [--runs 15] [--ttft 120] [--itl 15]
 *   npm run bench -- verdicts
 */
import { option } from './bench-setup.js'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { startGateway } from '../bin/gateway.js'
import { createLogger } from '../kernel/contract/log.js'
import { defaultConfigDir, defaultPipelinesDir } from '../kernel/contract/paths.js'

const runs = option('runs', 15)
const ttft = option('ttft', 120)
const itl = option('itl', 15)
const KEY = 'sk-bench-verdicts'

/** A copy of the default deployment with room for 32 concurrent calls and the chosen latency. */
function benchConfig(): { configDir: string; pipelinesDir: string; dataDir: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-verdicts-'))
  const configDir = path.join(root, 'config')
  fs.cpSync(defaultConfigDir, configDir, { recursive: true })
  const sim = path.join(configDir, 'simulator.yaml')
  fs.writeFileSync(
    sim,
    fs
      .readFileSync(sim, 'utf8')
      .replace(/ttft_ms:\s*\d+/, `ttft_ms: ${ttft}`)
      .replace(/itl_ms:\s*\d+/, `itl_ms: ${itl}`)
      .replace(/max_running:\s*\d+/, 'max_running: 64'),
  )
  const models = path.join(configDir, 'models.yaml')
  fs.writeFileSync(models, fs.readFileSync(models, 'utf8').replace(/capacity:\s*\d+/, 'capacity: 64'))
  return { configDir, pipelinesDir: defaultPipelinesDir, dataDir: path.join(root, 'data') }
}

/** About 600 tokens of state: a support ticket, as a verdict client would send. */
function ticket(nonce: number): string {
  const lines = [`Ticket ${nonce}`]
  for (let i = 0; i < 24; i++)
    lines.push(
      `Line ${i}: the customer writes that the parcel arrived late and the box was damaged, and asks for a refund.`,
    )
  return lines.join('\n')
}

function questions(n: number): Record<string, unknown> {
  const kinds = [
    { type: 'boolean', instructions: 'Does the customer ask for money back?' },
    {
      type: 'choice',
      instructions: 'Which team should handle it?',
      criteria: { shipping: 'late or damaged parcels', billing: 'refunds and invoices', product: null },
    },
    { type: 'score', instructions: 'How upset is the customer?', criteria: ['calm', 'annoyed', 'angry', 'furious'] },
  ]
  return Object.fromEntries(
    Array.from({ length: n }, (_, i) => [
      `q${i}`,
      { ...kinds[i % 3]!, instructions: `${kinds[i % 3]!.instructions} (${i})` },
    ]),
  )
}

interface Usage {
  prompt_tokens: number
  prompt_tokens_details: { cached_tokens: number }
}

const dirs = benchConfig()
const gateway = await startGateway({
  ...dirs,
  env: { SLUICE_DEMO_KEY: KEY },
  server: { port: 0, watch: false },
  log: createLogger({ level: 'warn' }),
  announce: () => undefined,
})

async function verdict(n: number, nonce: number): Promise<{ ms: number; usage: Usage }> {
  const started = performance.now()
  const res = await fetch(`${gateway.url}/v1/verdicts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ state: ticket(nonce), questions: questions(n) }),
  })
  const body = (await res.json()) as { usage: Usage }
  if (res.status !== 200) throw new Error(`verdicts answered ${res.status}: ${JSON.stringify(body)}`)
  return { ms: performance.now() - started, usage: body.usage }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))]!

try {
  // Warm the connections and the code paths; fresh state per request keeps every prefix cold.
  let nonce = 0
  for (let i = 0; i < 3; i++) await Promise.all([verdict(1, ++nonce), verdict(32, ++nonce)])
  const one: number[] = []
  const many: number[] = []
  let last: Usage | undefined
  const hitsBefore = (await gateway.simulator!.stats()).models['sim-vision-7b']!.prefixCacheHits
  for (let i = 0; i < runs; i++) {
    // Alternate the order so neither request always runs on a warmer process.
    if (i % 2 === 0) {
      one.push((await verdict(1, ++nonce)).ms)
      const r = await verdict(32, ++nonce)
      many.push(r.ms)
      last = r.usage
    } else {
      const r = await verdict(32, ++nonce)
      many.push(r.ms)
      last = r.usage
      one.push((await verdict(1, ++nonce)).ms)
    }
  }
  const hits = (await gateway.simulator!.stats()).models['sim-vision-7b']!.prefixCacheHits - hitsBefore
  const ratio = median(many) / median(one)
  const perQuestion = last!.prompt_tokens / 32
  console.log(
    `verdicts bench: simulator ttft ${ttft} ms, itl ${itl} ms, capacity 64; ${runs} runs each, fresh state every request`,
  )
  console.log(`  1 question:   median ${median(one).toFixed(1)} ms, p90 ${p90(one).toFixed(1)} ms`)
  console.log(`  32 questions: median ${median(many).toFixed(1)} ms, p90 ${p90(many).toFixed(1)} ms`)
  console.log(`  ratio 32/1 (medians): ${ratio.toFixed(2)}  (budget: at most 2; sequential would be ~32)`)
  console.log(
    `  32-question request: ${last!.prompt_tokens} prompt tokens (${perQuestion.toFixed(0)} per question), ${last!.prompt_tokens_details.cached_tokens} reported cached`,
  )
  console.log(`  simulator prefix-cache hits over the timed runs: ${hits} tokens`)
} finally {
  await gateway.close()
}
