/**
 * Speech benchmark: time to first audio (TTFA) through the gateway against the simulator
 * reached directly, the simulator in its own process and the gateway in another (as bench/chat).
 * The architecture's budget: the gateway adds at most 20 ms to the time to first speech audio.
 *
 *  1. Realistic timing (the default config: first audio 0.3 s after the slot, 1.8 times real
 *     time): TTFA of streamed pcm, alternating gateway and direct requests; the rest of each
 *     stream is abandoned once its first audio arrived. Also through the gateway as SSE, and
 *     one whole stream each way, for the real-time factor seen by the client.
 *  2. Zero latency (x-sim-first-audio-ms 0, x-sim-realtime-factor 0): the gateway's own cost.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/speech.js [--runs 20] [--zero-runs 300]
 *   npm run bench -- speech
 */
import { gatewayConfigFor } from './bench-setup.js'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { Pool } from 'undici'
import { startGatewayChild } from './gateway-child.js'
import { startChild } from './children.js'
import { defaultConfigDir, repoRoot } from '../kernel/contract/paths.js'

const option = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  const v = i > 0 ? Number(process.argv[i + 1]) : NaN
  return Number.isFinite(v) ? v : fallback
}
const RUNS = option('runs', 20)
const ZERO_RUNS = option('zero-runs', 300)
const KEY = 'sk-bench-speech'
const dist = path.join(repoRoot, 'dist')
// About 9 seconds of speech at the simulated pace (65 ms per character).
const INPUT =
  'Sluice streams speech as it is made, so the first words reach the listener long before the last ones are spoken aloud.'

interface Target {
  name: string
  pool: Pool
  headers: Record<string, string>
}

/** Sends one speech request; resolves with the ms to the first body byte (and to the end, when read whole). */
async function speak(
  t: Target,
  body: object,
  extraHeaders: Record<string, string>,
  whole: boolean,
): Promise<{ ttfa: number; total: number; bytes: number }> {
  const start = performance.now()
  const res = await t.pool.request({
    path: '/v1/audio/speech',
    method: 'POST',
    headers: { 'content-type': 'application/json', ...t.headers, ...extraHeaders },
    body: JSON.stringify(body),
  })
  if (res.statusCode !== 200) throw new Error(`${t.name}: status ${res.statusCode}: ${await res.body.text()}`)
  let ttfa = NaN
  let bytes = 0
  for await (const chunk of res.body) {
    if (bytes === 0) ttfa = performance.now() - start
    bytes += (chunk as Buffer).length
    if (!whole) {
      res.body.destroy()
      break
    }
  }
  return { ttfa, total: performance.now() - start, bytes }
}

const pct = (values: number[], p: number) => {
  const s = [...values].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!
}
const row = (label: string, v: number[]) =>
  `${label.padEnd(34)} median ${pct(v, 50).toFixed(2).padStart(8)} ms   p90 ${pct(v, 90).toFixed(2).padStart(8)} ms   (n=${v.length})`

async function main(): Promise<void> {
  const simFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-sim-')), 'simulator.yaml')
  fs.copyFileSync(path.join(defaultConfigDir, 'simulator.yaml'), simFile)
  const sim = await startChild(path.join(dist, 'sim', 'main.js'), ['--config', simFile, '--port', '0'])
  const gateway = await startGatewayChild(gatewayConfigFor(sim.url, KEY))
  const direct: Target = { name: 'simulator', pool: new Pool(sim.url, { connections: 4 }), headers: {} }
  const viaGateway: Target = {
    name: 'gateway',
    pool: new Pool(gateway.url, { connections: 4 }),
    headers: { authorization: `Bearer ${KEY}` },
  }
  const pcm = { model: 'sim-orpheus', voice: 'tara', input: INPUT, response_format: 'pcm' }

  // Warm up both paths (connections, JIT).
  for (let i = 0; i < 20; i++)
    for (const t of [direct, viaGateway])
      await speak(t, pcm, { 'x-sim-first-audio-ms': '0', 'x-sim-realtime-factor': '0' }, true)

  console.log(`Speech: time to first audio (sim-orpheus, pcm, ${INPUT.length} characters of input)\n`)
  console.log('1. Realistic timing (first audio 300 ms after the slot, 1.8 times real time)')
  const real = { direct: [] as number[], gateway: [] as number[], sse: [] as number[] }
  for (let i = 0; i < RUNS; i++) {
    real.direct.push((await speak(direct, pcm, {}, false)).ttfa)
    real.gateway.push((await speak(viaGateway, pcm, {}, false)).ttfa)
    real.sse.push((await speak(viaGateway, { ...pcm, stream_format: 'sse' }, {}, false)).ttfa)
  }
  console.log(row('   simulator directly', real.direct))
  console.log(row('   through the gateway (pcm)', real.gateway))
  console.log(row('   through the gateway (sse)', real.sse))
  console.log(
    `   gateway adds (medians): ${(pct(real.gateway, 50) - pct(real.direct, 50)).toFixed(2)} ms pcm, ${(pct(real.sse, 50) - pct(real.direct, 50)).toFixed(2)} ms sse   (budget: 20 ms)`,
  )
  for (const t of [direct, viaGateway]) {
    const r = await speak(t, pcm, {}, true)
    const audio = r.bytes / 2 / 24000
    console.log(
      `   one whole stream, ${t.name.padEnd(9)}: ${audio.toFixed(2)} s of audio in ${(r.total / 1000).toFixed(2)} s, first audio at ${r.ttfa.toFixed(0)} ms (real-time factor ${(audio / (r.total / 1000)).toFixed(2)})`,
    )
  }

  console.log(
    '\n2. Zero latency (x-sim-first-audio-ms 0, x-sim-realtime-factor 0, "Hello there."): the gateway\'s own cost',
  )
  // A short input, so that making and moving the audio does not hide the gateway's own cost.
  const zero = { 'x-sim-first-audio-ms': '0', 'x-sim-realtime-factor': '0' }
  const short = { ...pcm, input: 'Hello there.' }
  const z = { direct: [] as number[], gateway: [] as number[] }
  for (let i = 0; i < ZERO_RUNS; i++) {
    z.direct.push((await speak(direct, short, zero, true)).ttfa)
    z.gateway.push((await speak(viaGateway, short, zero, true)).ttfa)
  }
  console.log(row('   simulator directly', z.direct))
  console.log(row('   through the gateway (pcm)', z.gateway))
  console.log(
    `   gateway adds (medians): ${(pct(z.gateway, 50) - pct(z.direct, 50)).toFixed(2)} ms, p90 ${(pct(z.gateway, 90) - pct(z.direct, 90)).toFixed(2)} ms`,
  )

  await direct.pool.close()
  await viaGateway.pool.close()
  gateway.stop()
  sim.stop()
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err)
    process.exit(1)
  },
)
