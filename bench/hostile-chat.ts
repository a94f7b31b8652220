/**
 * Hostile chat requests against the embedded default (the simulator at zero latency, the worst
 * case for an event loop: a whole generation is made at once), each alone, with a probe
 * `GET /healthz` every 100 ms. Prints, per case, the status, the bytes of the reply, the longest
 * gap between two probe answers while the case ran, and the process RSS after it. Issue 31,
 * points 2 to 4. Not a test: `node dist/bench/hostile-chat.js [--scale 1] [--url http://127.0.0.1:PORT]`
 * (`--scale` multiplies the sizes; each case is bounded by a 180 s client timeout). With
 * `--url`, against a running gateway (loopback only; a tenant key in SLUICE_DEMO_KEY), which is
 * the honest figure: without it the gateway runs in this process, beside the client and probe.
 */
import { startTestGateway, TEST_KEY } from '../test/support/gateway.js'
import { option } from './bench-setup.js'

const urlAt = process.argv.indexOf('--url')
const given = urlAt > 0 ? process.argv[urlAt + 1] : undefined
if (given && !/^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?\/?$/.test(given))
  throw new Error('--url must be a loopback URL')
const KEY = given ? (process.env.SLUICE_DEMO_KEY ?? TEST_KEY) : TEST_KEY

interface Case {
  name: string
  path: string
  headers?: Record<string, string>
  body: () => unknown
}

const scale = option('scale', 1)
const n = (x: number) => Math.max(1, Math.round(x * scale))
const user = (content: string) => [{ role: 'user', content }]

const cases: Case[] = [
  {
    name: `chat n ${n(128)}, max_tokens ${n(32000)}, streamed`,
    path: '/v1/chat/completions',
    body: () => ({
      model: 'sim-chat-instruct',
      messages: user('Tell me everything.'),
      n: n(128),
      max_tokens: n(32000),
      stream: true,
    }),
  },
  {
    name: `chat logprobs, top_logprobs 20, n ${n(64)}, max_tokens ${n(4000)}`,
    path: '/v1/chat/completions',
    body: () => ({
      model: 'sim-chat-instruct',
      messages: user('Tell me everything.'),
      logprobs: true,
      top_logprobs: 20,
      n: n(64),
      max_tokens: n(4000),
    }),
  },
  {
    name: `count_tokens, ${n(30)} MiB`,
    path: '/v1/messages/count_tokens',
    headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
    body: () => ({ model: 'sim-chat-instruct', messages: user('word '.repeat(n(30) * 209_715)) }),
  },
  {
    name: `chat, ${n(60)} MiB of words in one message`,
    path: '/v1/chat/completions',
    body: () => ({ model: 'sim-chat-instruct', messages: user('word '.repeat(n(60) * 209_715)) }),
  },
  {
    name: 'allowed: chat n 16, max_tokens 32000, ignore_eos, streamed',
    path: '/v1/chat/completions',
    body: () => ({
      model: 'sim-chat-instruct',
      messages: user('Tell me everything.'),
      n: 16,
      max_tokens: 32000,
      ignore_eos: true,
      stream: true,
    }),
  },
  {
    name: 'allowed: chat logprobs, top_logprobs 20, n 16, max_tokens 4000, ignore_eos',
    path: '/v1/chat/completions',
    body: () => ({
      model: 'sim-chat-instruct',
      messages: user('Tell me everything.'),
      logprobs: true,
      top_logprobs: 20,
      n: 16,
      max_tokens: 4000,
      ignore_eos: true,
    }),
  },
]

/** GET /healthz every 100 ms until stopped; the longest wait between two answers (or to the stop). */
function probe(url: string): { stop(): Promise<{ answered: number; failed: number; longestGapMs: number }> } {
  let running = true
  let answered = 0
  let failed = 0
  let last = performance.now()
  let longest = 0
  const loop = (async () => {
    while (running) {
      const sent = performance.now()
      try {
        const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(120_000) })
        await res.arrayBuffer()
        if (res.ok) answered++
        else failed++
      } catch {
        failed++
      }
      const now = performance.now()
      longest = Math.max(longest, now - last)
      last = now
      await new Promise((r) => setTimeout(r, Math.max(0, 100 - (now - sent))))
    }
  })()
  return {
    async stop() {
      running = false
      longest = Math.max(longest, performance.now() - last)
      await loop
      return { answered, failed, longestGapMs: longest }
    },
  }
}

async function run(): Promise<void> {
  const gw = given ? undefined : await startTestGateway()
  const url = (given ?? gw!.url).replace(/\/$/, '')
  process.stdout.write(`hostile chat (scale ${scale}); gateway rss at start ${await serverRss(url)} MB\n`)
  try {
    for (const c of cases) {
      const body = JSON.stringify(c.body())
      const p = probe(url)
      const started = performance.now()
      let status: number | string
      let bytes = 0
      try {
        const res = await fetch(`${url}${c.path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...c.headers },
          body,
          signal: AbortSignal.timeout(180_000),
        })
        status = res.status
        for await (const chunk of res.body as AsyncIterable<Uint8Array>) bytes += chunk.length
      } catch (err) {
        status = err instanceof Error ? err.name : 'error'
      }
      const seconds = (performance.now() - started) / 1000
      const probes = await p.stop()
      process.stdout.write(
        `${c.name}: status ${status}, ${mb(bytes)} MB in ${seconds.toFixed(1)} s; probe: longest gap ${Math.round(probes.longestGapMs)} ms, ${probes.answered} answered, ${probes.failed} failed; gateway rss ${await serverRss(url)} MB\n`,
      )
    }
    const normal = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sim-chat-instruct', messages: user('Hello') }),
    })
    process.stdout.write(`then a normal chat: status ${normal.status}\n`)
  } finally {
    await gw?.close()
  }
}

/** The gateway's resident memory as its /metrics tells it (the gateway may be another process). */
async function serverRss(url: string): Promise<string> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const m = /^process_resident_memory_bytes (\d+)/m.exec(text)
  return m ? mb(Number(m[1])) : '?'
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)

run().catch((err: unknown) => {
  process.stderr.write(`hostile-chat: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exit(1)
})
