/**
 * Hostile chat requests against the embedded default (the simulator at zero latency, the worst
 * case for an event loop: a whole generation is made at once), each alone, with a probe
 * `GET /healthz` every 100 ms, on a thread of its own (bench/probe-thread.ts). Prints, per case, the status, the bytes of the reply, the longest
 * gap between two probe answers while the case ran, and the process RSS after it. Issue 31,
 * points 2 to 4. Not a test: `node dist/bench/hostile-chat.js [--scale 1] [--url http://127.0.0.1:PORT]
 * [--probe-ms 100] [--only TEXT] [--repeat 1]` (`--scale` multiplies the sizes; each case is
 * bounded by a 180 s client timeout; `--probe-ms 5` measures a stall to within a few ms, where
 * the default 100 ms adds up to 100 ms of the probe's own phase; `--only` runs the cases whose
 * name contains TEXT, `--repeat` runs each case that many times). With
 * `--url`, against a running gateway (loopback only; a tenant key in SLUICE_DEMO_KEY), which is
 * the honest figure: without it the gateway runs in this process, beside the client and probe.
 */
import { startTestGateway, TEST_KEY } from '../test/support/gateway.js'
import { option } from './bench-setup.js'
import { startProbe } from './probe-thread.js'

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
const probeMs = option('probe-ms', 100)
const repeat = option('repeat', 1)
const onlyAt = process.argv.indexOf('--only')
const only = onlyAt > 0 ? process.argv[onlyAt + 1] : undefined
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

async function run(): Promise<void> {
  const gw = given ? undefined : await startTestGateway()
  const url = (given ?? gw!.url).replace(/\/$/, '')
  process.stdout.write(
    `hostile chat (scale ${scale}, probe every ${probeMs} ms); gateway rss at start ${await serverRss(url)} MB\n`,
  )
  const chosen = cases.filter((c) => only === undefined || c.name.includes(only))
  try {
    for (const c of chosen.flatMap((c) => Array<Case>(repeat).fill(c))) {
      // Encoded before the probe starts: encoding 60 MiB inside fetch held this process's loop
      // (and so the probe) for ~100 ms, which was counted as the gateway's.
      const body = Buffer.from(JSON.stringify(c.body()))
      const p = await startProbe(url, probeMs)
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
