/**
 * `npm run bench -- replicas [--requests 480] [--concurrency 16] [--seconds 120]`: one backend
 * of 4 simulator replicas (4 processes, each with its own prefix cache, KV-cache bound and
 * running slots), a workload of 20 shared system prompts (about 1,500 tokens each) with varied
 * user turns, streamed; for each routing policy, a fresh gateway and fresh replicas. Reports the
 * prefix-cache hit rate (sum of cached_tokens over sum of prompt tokens, as the replicas report
 * them) and the time to first token at the client (p50, p99).
 *
 * The replicas' KV cache holds about 6 of the 20 prompts each (as a real server's cache holds a
 * few long prompts beside the running requests): a policy that sends every prompt everywhere
 * evicts what it cached; one that keeps each prompt on one replica keeps 5 per replica warm.
 * The simulator charges prefill per uncached prompt token (`prefill_ms_per_token`), so a hit
 * answers sooner, as on vLLM.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { dump, load } from 'js-yaml'
import { Pool } from 'undici'
import { defaultConfigDir, repoRoot } from '../kernel/contract/paths.js'
import { gatewayConfigFor, option } from './bench-setup.js'
import { startGatewayChild } from './gateway-child.js'
import { startChild, type Child } from './children.js'

const REPLICAS = 4
const PROMPTS = 20
const KEY = 'sk-bench-replicas'
const requests = option('requests', 480)
const concurrency = option('concurrency', 16)
const seconds = option('seconds', 120)
const policies = ['prefix_aware', 'round_robin', 'least_loaded'] as const

const WORDS =
  'the of and to in is for on with as by at from that this be are it an or which policy service request customer account order invoice refund shipping warranty product support answer clearly politely never reveal internal notes always cite the handbook section'.split(
    ' ',
  )

/** A deterministic pseudo-random generator (the workload is the same for every policy). */
function seeded(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0
    return s / 2 ** 32
  }
}

function systemPrompt(i: number): string {
  const rnd = seeded(1000 + i)
  const words: string[] = [`You are assistant number ${i} of the help desk.`]
  for (let w = 0; w < 1400; w++) words.push(WORDS[Math.floor(rnd() * WORDS.length)]!)
  return words.join(' ')
}

function simConfig(): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-sim-')), 'simulator.yaml')
  const sim = load(fs.readFileSync(path.join(defaultConfigDir, 'simulator.yaml'), 'utf8')) as Record<string, unknown>
  sim.latency = { ttft_ms: 15, itl_ms: 2, jitter: 0, prefill_ms_per_token: 0.1 }
  sim.max_running = 8
  sim.kv_cache_blocks = 800
  fs.writeFileSync(file, dump(sim))
  return file
}

interface Outcome {
  policy: string
  requests: number
  errors: number
  hitRate: number
  meanPrompt: number
  p50: number
  p99: number
  seconds: number
}

/** Waits (at most 10 s) until a process has gone. */
async function exited(pid: number): Promise<void> {
  for (let i = 0; i < 200 && fs.existsSync(`/proc/${pid}`); i++) await new Promise((r) => setTimeout(r, 50))
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

async function runPolicy(policy: (typeof policies)[number], prompts: string[]): Promise<Outcome> {
  const simFile = simConfig()
  const sims: Child[] = []
  for (let i = 0; i < REPLICAS; i++)
    sims.push(await startChild(path.join(repoRoot, 'dist', 'sim', 'main.js'), ['--config', simFile, '--port', '0']))
  const dir = gatewayConfigFor(sims[0]!.url, KEY, { capacity: 64, connections: 64 })
  const modelsFile = path.join(dir, 'models.yaml')
  const models = load(fs.readFileSync(modelsFile, 'utf8')) as { backends: Record<string, Record<string, unknown>> }
  Object.assign(models.backends.sim!, { replicas: sims.map((s) => s.url), routing: { policy } })
  fs.writeFileSync(modelsFile, dump(models))
  const gateway = await startGatewayChild(dir)
  const pool = new Pool(gateway.url, { connections: concurrency, pipelining: 1 })
  const rnd = seeded(7)
  // The same sequence of (prompt, turn) pairs for every policy.
  const work = Array.from({ length: requests }, (_, i) => ({
    system: prompts[Math.floor(rnd() * PROMPTS)]!,
    user: `Question ${i}: ${WORDS[Math.floor(rnd() * WORDS.length)]} ${WORDS[Math.floor(rnd() * WORDS.length)]}?`,
  }))
  const ttfts: number[] = []
  let prompt = 0
  let cached = 0
  let errors = 0
  let next = 0
  const started = performance.now()
  const deadline = started + seconds * 1000
  const worker = async (): Promise<void> => {
    while (next < work.length && performance.now() < deadline) {
      const item = work[next++]!
      const body = JSON.stringify({
        model: 'sim-chat-instruct',
        messages: [
          { role: 'system', content: item.system },
          { role: 'user', content: item.user },
        ],
        max_tokens: 16,
        stream: true,
        stream_options: { include_usage: true },
      })
      const t0 = performance.now()
      try {
        const res = await pool.request({
          path: '/v1/chat/completions',
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body,
        })
        let first = 0
        let text = ''
        for await (const chunk of res.body) {
          if (first === 0) first = performance.now()
          text += (chunk as Buffer).toString()
        }
        if (res.statusCode !== 200 || !text.includes('[DONE]')) {
          errors++
          continue
        }
        ttfts.push(first - t0)
        const last = text
          .split('\n\n')
          .filter((e) => e.includes('"usage"'))
          .at(-1)
        const usage = last
          ? (
              JSON.parse(last.slice('data: '.length)) as {
                usage?: { prompt_tokens: number; prompt_tokens_details?: { cached_tokens?: number } }
              }
            ).usage
          : undefined
        if (usage) {
          prompt += usage.prompt_tokens
          cached += usage.prompt_tokens_details?.cached_tokens ?? 0
        }
      } catch {
        errors++
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const elapsed = (performance.now() - started) / 1000
  await pool.close()
  gateway.stop()
  for (const s of sims) s.stop()
  // The next policy's gateway opens the same records journal: this one must have let go of it.
  await exited(gateway.pid)
  ttfts.sort((a, b) => a - b)
  return {
    policy,
    requests: ttfts.length,
    errors,
    hitRate: prompt > 0 ? cached / prompt : NaN,
    meanPrompt: ttfts.length > 0 ? prompt / ttfts.length : NaN,
    p50: percentile(ttfts, 50),
    p99: percentile(ttfts, 99),
    seconds: elapsed,
  }
}

const prompts = Array.from({ length: PROMPTS }, (_, i) => systemPrompt(i))
console.log(
  `replicas: ${REPLICAS} simulator processes, ${PROMPTS} system prompts, ${requests} streamed requests at concurrency ${concurrency} (bounded to ${seconds} s per policy)`,
)
console.log('policy          requests  errors  prefix-cache hit rate  TTFT p50    TTFT p99')
for (const policy of policies) {
  const r = await runPolicy(policy, prompts)
  console.log(
    `${r.policy.padEnd(15)} ${String(r.requests).padStart(8)}  ${String(r.errors).padStart(6)}  ${(r.hitRate * 100).toFixed(1).padStart(20)} %  ${r.p50.toFixed(1).padStart(6)} ms  ${r.p99.toFixed(1).padStart(6)} ms   (${r.seconds.toFixed(1)} s, ${r.meanPrompt.toFixed(0)} prompt tokens per request)`,
  )
}
process.exit(0)
