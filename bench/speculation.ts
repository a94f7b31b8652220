/**
 * `npm run bench -- speculation [--requests 24] [--concurrency 4] [--accept 0.7] [--max-tokens 128]`
 *
 * What the speculation boon saves, against the simulator at its shipped, realistic speeds
 * (config/simulator.yaml: sim-draft-1b at 0.4 × and sim-large-70b at 4 × the global 30 ms to
 * first token and 5 ms a token). The same prompts go to sim-large with speculation and with
 * `x-gateway-boons: off`, non-streamed (end-to-end latency) and streamed (time to the first
 * content chunk). `--accept` is the share of prompts whose check the simulator steers to `yes`
 * (its `[sim-verdict: prefer=…]` marker); the acceptance actually seen is lower, because the
 * simulator cuts some drafts at their length limit (llm-d's length histogram), and those are
 * rejected without a check. The large model's tokens come from the usage records (admin API),
 * so the check's prefill and the draft are counted where they happened.
 */
import path from 'node:path'
import { repoRoot } from '../kernel/contract/paths.js'
import { startGatewayChild } from './gateway-child.js'
import { startChild } from './children.js'
import { gatewayConfigFor, option } from './bench-setup.js'
import { defaultSimConfigFile } from '../sim/index.js'

const REQUESTS = option('requests', 24)
const CONCURRENCY = option('concurrency', 4)
const ACCEPT = option('accept', 0.7)
const MAX_TOKENS = option('max-tokens', 128)
const KEY = 'sk-bench-speculation'
const ADMIN = 'sk-bench-admin'
const dist = path.join(repoRoot, 'dist')

const sim = await startChild(path.join(dist, 'sim', 'main.js'), ['--config', defaultSimConfigFile, '--port', '0'])
const gateway = await startGatewayChild(gatewayConfigFor(sim.url, KEY, {}, ['gateway.yaml', 'admin.yaml']), {
  SLUICE_ADMIN_KEY: ADMIN,
})

/**
 * The same prompts for every row, so the large model's answers are as long with speculation as
 * without (the simulator's timing does not depend on its prefix cache); the first `ACCEPT` share
 * is steered to an accepted check.
 */
function prompts(round = ''): string[] {
  const accepted = Math.round(REQUESTS * ACCEPT)
  return Array.from(
    { length: REQUESTS },
    (_, i) =>
      `Question ${round}${i}: explain topic number ${i} briefly. [sim-verdict: prefer=${i < accepted ? 'yes' : 'no'}]`,
  )
}

interface Timing {
  id: string
  totalMs: number
  firstMs: number
  speculated: boolean
}

async function one(prompt: string, stream: boolean, boons: 'on' | 'off'): Promise<Timing> {
  const started = performance.now()
  const res = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${KEY}`,
      'content-type': 'application/json',
      ...(boons === 'off' ? { 'x-gateway-boons': 'off' } : {}),
    },
    body: JSON.stringify({
      model: 'sim-large',
      messages: [{ role: 'user', content: prompt }],
      max_tokens: MAX_TOKENS,
      stream,
    }),
  })
  if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`)
  let firstMs = NaN
  if (stream) {
    const reader = res.body!.getReader()
    const decoder = new TextDecoder()
    let seen = ''
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      seen += decoder.decode(value, { stream: true })
      // The first chunk with content: what a reader sees first.
      if (Number.isNaN(firstMs) && /"content":"[^"]/.test(seen)) firstMs = performance.now() - started
    }
  } else {
    await res.arrayBuffer()
    firstMs = performance.now() - started
  }
  return {
    id: res.headers.get('x-gateway-request-id')!,
    totalMs: performance.now() - started,
    firstMs,
    speculated: res.headers.get('x-gateway-boons') === 'speculation',
  }
}

async function run(list: string[], stream: boolean, boons: 'on' | 'off'): Promise<Timing[]> {
  const out: Timing[] = []
  let next = 0
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < list.length) out.push(await one(list[next++]!, stream, boons))
    }),
  )
  return out
}

interface RecordRow {
  request_id: string
  route: string
  model: string
  prompt_tokens: number
  completion_tokens: number
}

async function recordsSince(since: number): Promise<RecordRow[]> {
  // Records are written in batches off the request path: wait for the last batch.
  await new Promise((r) => setTimeout(r, 1500))
  const res = await fetch(`${gateway.url}/admin/records?key=bench&from=${since}&limit=1000`, {
    headers: { authorization: `Bearer ${ADMIN}` },
  })
  if (res.status !== 200) throw new Error(`admin records: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { data: RecordRow[] }).data
}

const p50 = (xs: number[]) => {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor((s.length - 1) / 2)]!
}
const ms = (x: number) => (Number.isNaN(x) ? '     -' : `${x.toFixed(0).padStart(6)}`)

interface Row {
  label: string
  timings: Timing[]
  records: RecordRow[]
}

async function measure(label: string, stream: boolean, boons: 'on' | 'off'): Promise<Row> {
  const since = Date.now()
  const timings = await run(prompts(), stream, boons)
  return { label, timings, records: await recordsSince(since) }
}

// Warm-up: connections and the first code paths, not measured.
await run(prompts('warm-up ').slice(0, CONCURRENCY), false, 'on')

const rows: Row[] = []
for (const stream of [false, true]) {
  const kind = stream ? 'stream' : 'json'
  rows.push(await measure(`${kind}, speculation off`, stream, 'off'))
  rows.push(await measure(`${kind}, speculation on`, stream, 'on'))
}

console.log(
  `speculation: ${REQUESTS} requests per row, ${CONCURRENCY} at a time, max_tokens ${MAX_TOKENS}, checks steered to yes for ${Math.round(ACCEPT * 100)}% of prompts`,
)
console.log(
  'row                          accepted   p50 e2e   p50 TTFT   (accepted / rejected e2e)   large: completion  prompt   draft: completion',
)
for (const row of rows) {
  // A request whose large model answered itself has a `chat` record; an accepted draft has none.
  const answeredByLarge = new Set(row.records.filter((r) => r.route === 'chat').map((r) => r.request_id))
  const accepted = row.timings.filter((t) => t.speculated && !answeredByLarge.has(t.id))
  const rejected = row.timings.filter((t) => t.speculated && answeredByLarge.has(t.id))
  const sum = (model: string, field: 'completion_tokens' | 'prompt_tokens') =>
    row.records.filter((r) => r.model === model).reduce((s, r) => s + r[field], 0)
  const on = row.label.endsWith('on')
  console.log(
    `${row.label.padEnd(28)} ${on ? `${accepted.length}/${row.timings.length}`.padStart(8) : '       -'}  ${ms(p50(row.timings.map((t) => t.totalMs)))} ms ${ms(p50(row.timings.map((t) => t.firstMs)))} ms   ${on ? `(${ms(p50(accepted.map((t) => t.totalMs)))} / ${ms(p50(rejected.map((t) => t.totalMs)))} ms)` : '                   '}   ${String(sum('sim-large', 'completion_tokens')).padStart(8)} ${String(sum('sim-large', 'prompt_tokens')).padStart(8)}   ${String(sum('sim-draft', 'completion_tokens')).padStart(8)}`,
  )
}
gateway.stop()
sim.stop()
process.exit(0)
