/**
 * The cost of one upstream call read whole, two ways, in one process against a local node:http
 * server that answers a chat completion: undici's `request()` with `body.text()` (what
 * `Backends.call` does) and `dispatchWhole` (what `Backends.callText` does). CPU per call of the
 * whole process (server included, the same for both), rounds interleaved, medians.
 *
 *   npm run bench -- upstream-call   (or: node dist/bench/upstream-call.js [--calls 20000] [--rounds 5])
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Pool } from 'undici'
import { dispatchWhole } from '../kernel/services/backends/whole-reply.js'
import { median, option } from './bench-setup.js'

const CALLS = option('calls', 20_000)
const ROUNDS = option('rounds', 5)
const CONNECTIONS = 64

const answer = JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'sim',
  choices: [{ index: 0, message: { role: 'assistant', content: 'word '.repeat(20) }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 },
})
const server = http.createServer((req, res) => {
  req.resume()
  req.on('end', () =>
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) }).end(answer),
  )
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
const pool = new Pool(origin, { connections: CONNECTIONS })
const call = {
  origin,
  path: '/v1/chat/completions',
  method: 'POST' as const,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ model: 'sim', messages: [{ role: 'user', content: 'hi' }] }),
}

const ways: Record<string, () => Promise<string>> = {
  'request() + body.text()': async () => {
    const res = await pool.request({ ...call, signal: new AbortController().signal })
    return res.body.text()
  },
  dispatchWhole: async () => (await dispatchWhole(pool, { ...call, signal: new AbortController().signal })).text,
}

async function round(way: () => Promise<string>): Promise<number> {
  let sent = 0
  const before = process.cpuUsage()
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (sent++ < CALLS) if ((await way()).length !== answer.length) throw new Error('short answer')
    }),
  )
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1000 / CALLS
}

const runs: Record<string, number[]> = {}
for (const way of Object.values(ways)) await round(way) // warm-up
for (let r = 0; r < ROUNDS; r++)
  for (const [name, way] of Object.entries(ways)) (runs[name] ??= []).push(await round(way))
console.log(
  `upstream call read whole: ${CALLS} calls a round, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds, medians (CPU of this process, server included)`,
)
for (const [name, xs] of Object.entries(runs)) console.log(`${name.padEnd(26)} ${median(xs).toFixed(4)} ms CPU a call`)
const [a, b] = Object.keys(ways).map((n) => median(runs[n]!))
console.log(`dispatchWhole / request(): ${(b! / a!).toFixed(2)}`)
await pool.close()
server.close()
