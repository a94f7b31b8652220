/**
 * The Query service over WebSocket at scale: N concurrent sockets (default 1,000), each
 * streaming query answers one after another for a bounded time (search off, max_tokens 32),
 * against the simulator at zero latency in its own process. Reports messages per second,
 * answers per second and the p50/p99 time to the first delta; then the same load as streamed
 * chat completions over SSE (same prompt, N connections), the baseline of "a WebSocket query
 * stream costs no more than an SSE one"; and the memory of an idle socket (the gateway's RSS
 * with N idle sockets open minus without, over N).
 *
 *   npm run bench -- query-ws [--sockets 1000] [--seconds 10]
 */
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { dump } from 'js-yaml'
import WebSocket from 'ws'
import { startGatewayChild } from './gateway-child.js'
import { startChild, type Child } from './children.js'
import { repoRoot } from '../kernel/contract/paths.js'
import { formatHash, hashSecret } from '../protocols/credentials/secrets.js'
import { gatewayConfigFor, option, zeroLatencySimConfig } from './bench-setup.js'

const KEY = 'sk-bench'
const TOKEN = 'qt-bench-service'
const SOCKETS = option('sockets', 1000)
const SECONDS = option('seconds', 10)
const dist = path.join(repoRoot, 'dist')
const SYSTEM = 'You are a helpful assistant.'
const QUESTION = 'How do I create an API key for a new team, and how is its budget enforced?'

interface StreamStats {
  messages: number
  answers: number
  errors: number
  ttft: number[]
  seconds: number
}

function configFor(simUrl: string): string {
  const dir = gatewayConfigFor(simUrl, KEY, { capacity: 4 * SOCKETS, connections: 256 }, ['gateway.yaml', 'query.yaml'])
  const project = {
    key: 'bench',
    defaults: { model_name: 'sim-chat-instruct' },
    tokens: [{ id: 'bench-service', kind: 'service', hash: formatHash(hashSecret(TOKEN)) }],
  }
  fs.writeFileSync(path.join(dir, 'projects.yaml'), dump({ projects: { bench: project } }))
  return dir
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN
}

function openSocket(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false })
    ws.once('open', () => resolve(ws))
    ws.once('error', reject)
  })
}

async function openSockets(url: string, n: number): Promise<WebSocket[]> {
  const out: WebSocket[] = []
  // In batches, so the accept queue is not the thing measured.
  for (let i = 0; i < n; i += 100)
    out.push(...(await Promise.all(Array.from({ length: Math.min(100, n - i) }, () => openSocket(url)))))
  return out
}

/** Every socket streams queries back to back until the time is up. */
async function streamQueries(sockets: WebSocket[], seconds: number): Promise<StreamStats> {
  const stats: StreamStats = { messages: 0, answers: 0, errors: 0, ttft: [], seconds }
  const deadline = performance.now() + seconds * 1000
  const started = performance.now()
  const body = (id: number) =>
    JSON.stringify({
      id,
      action: 'query',
      endpoint: 'query',
      query: QUESTION,
      request_source: 'override_params',
      model_params: { system_prompt: SYSTEM, max_tokens: 32 },
    })
  await Promise.all(
    sockets.map(
      (ws, s) =>
        new Promise<void>((resolve) => {
          let sent = 0
          let first = true
          let n = 0
          const next = () => {
            if (performance.now() >= deadline) {
              ws.off('message', onMessage)
              return resolve()
            }
            sent = performance.now()
            first = true
            ws.send(body(s * 1_000_000 + n++))
          }
          const onMessage = (data: WebSocket.RawData) => {
            stats.messages++
            const text = data.toString()
            if (first && text.includes('"query.delta"')) {
              first = false
              stats.ttft.push(performance.now() - sent)
            }
            if (text.includes('"query.done"')) {
              stats.answers++
              next()
            } else if (text.includes('"type":"error"')) {
              stats.errors++
              next()
            }
          }
          ws.on('message', onMessage)
          next()
        }),
    ),
  )
  stats.seconds = (performance.now() - started) / 1000
  return stats
}

/** The baseline: streamed chat completions over SSE (or a query over REST), N connections, back to back. */
async function streamChat(url: string, connections: number, seconds: number, rest = false): Promise<StreamStats> {
  const stats: StreamStats = { messages: 0, answers: 0, errors: 0, ttft: [], seconds }
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections })
  const target = new URL(rest ? '/query/v1/query' : '/v1/chat/completions', url)
  const payload = rest
    ? JSON.stringify({
        endpoint: 'query',
        query: QUESTION,
        request_source: 'override_params',
        model_params: { system_prompt: SYSTEM, max_tokens: 32 },
      })
    : JSON.stringify({
        model: 'sim-chat-instruct',
        messages: [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: QUESTION },
        ],
        max_tokens: 32,
        stream: true,
        stream_options: { include_usage: true },
      })
  const deadline = performance.now() + seconds * 1000
  const started = performance.now()
  const one = () =>
    new Promise<void>((resolve) => {
      const sent = performance.now()
      let first = true
      let partial = ''
      const req = http.request(
        target,
        {
          agent,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${rest ? TOKEN : KEY}`,
            'content-length': Buffer.byteLength(payload),
          },
        },
        (res) => {
          if (res.statusCode !== 200) stats.errors++
          res.setEncoding('utf8')
          if (rest) res.once('data', () => stats.ttft.push(performance.now() - sent))
          res.on('data', (chunk: string) => {
            const parts = (partial + chunk).split('\n\n')
            partial = parts.pop()!
            for (const event of parts) {
              stats.messages++
              if (first && event.includes('"content"')) {
                first = false
                stats.ttft.push(performance.now() - sent)
              }
            }
          })
          res.on('end', () => {
            if (rest && partial) stats.messages++
            stats.answers++
            resolve()
          })
        },
      )
      req.on('error', () => {
        stats.errors++
        resolve()
      })
      req.end(payload)
    })
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) await one()
    }),
  )
  stats.seconds = (performance.now() - started) / 1000
  agent.destroy()
  return stats
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms))

function line(name: string, s: StreamStats): string {
  return `  ${name.padEnd(30)} ${(s.messages / s.seconds).toFixed(0).padStart(8)} msg/s ${(s.answers / s.seconds).toFixed(0).padStart(7)} answers/s   first delta p50 ${percentile(s.ttft, 50).toFixed(1).padStart(7)} ms  p99 ${percentile(s.ttft, 99).toFixed(1).padStart(7)} ms   (${s.answers} answers, ${s.errors} errors)`
}

async function idleMemory(
  gateway: Child,
  wsUrl: string,
): Promise<{ before: number; after: number; perSocketKb: number }> {
  await settle(2000)
  const before = gateway.rssMb()
  const sockets = await openSockets(wsUrl, SOCKETS)
  await settle(3000)
  const after = gateway.rssMb()
  for (const ws of sockets) ws.close()
  await settle(1000)
  return { before, after, perSocketKb: ((after - before) * 1024) / SOCKETS }
}

async function main(): Promise<void> {
  const sim = await startChild(path.join(dist, 'sim', 'main.js'), [
    '--config',
    zeroLatencySimConfig(4 * SOCKETS),
    '--port',
    '0',
  ])
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-query-ws-'))
  const gateway = await startGatewayChild(configFor(sim.url), { SLUICE_DATA: dataDir })
  const wsUrl = `${gateway.url.replace(/^http/, 'ws')}/query/v1/ws?access_token=${TOKEN}`
  console.log(
    `Query service over WebSocket: ${new Date().toISOString().slice(0, 10)}, ${os.cpus()[0]?.model ?? '?'} × ${os.cpus().length}, node ${process.version}`,
  )
  console.log(
    `${SOCKETS} sockets (and ${SOCKETS} SSE connections), ${SECONDS} s each, answers back to back per socket; simulator at zero latency in its own process (max_tokens 32, search off)\n`,
  )

  // Memory first, on a fresh gateway: sockets open, nothing sent.
  const memory = await idleMemory(gateway, wsUrl)

  // Warm-up of both paths, then the measured runs.
  const warm = await openSockets(wsUrl, 16)
  await streamQueries(warm, 1)
  for (const ws of warm) ws.close()
  await streamChat(gateway.url, 16, 1)

  const sockets = await openSockets(wsUrl, SOCKETS)
  const ws = await streamQueries(sockets, SECONDS)
  for (const s of sockets) s.close()
  await settle(1000)
  const sse = await streamChat(gateway.url, SOCKETS, SECONDS)
  await settle(1000)
  const rest = await streamChat(gateway.url, SOCKETS, SECONDS, true)
  console.log(line('query over WebSocket', ws))
  console.log(line('chat completions over SSE', sse))
  console.log(line('query over REST (not streamed)', rest))
  console.log(
    `\n  idle sockets: gateway RSS ${memory.before.toFixed(1)} MB without, ${memory.after.toFixed(1)} MB with ${SOCKETS} open: ${memory.perSocketKb.toFixed(1)} KB per idle socket`,
  )
  console.log(`  gateway peak RSS ${gateway.peakRssMb().toFixed(1)} MB`)
  gateway.stop()
  sim.stop()
  await settle(1000)
  fs.rmSync(dataDir, { recursive: true, force: true })
  process.exit(0)
}

await main()
