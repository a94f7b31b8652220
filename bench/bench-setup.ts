/** What every benchmark sets up the same way: its options, and a gateway config folder in front of one simulator. */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { dump, load } from 'js-yaml'
import { defaultConfigDir } from '../kernel/contract/paths.js'
import { formatHash, hashSecret } from '../protocols/credentials/secrets.js'
import type { LoadResult } from './load.js'

/** The middle value (the upper of the two middle ones for an even count). */
export function median(xs: readonly number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
}

/** `--name value` from the command line, as a number, or the fallback. */
export function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`)
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN
  return Number.isFinite(v) ? v : fallback
}

/** `--name "<node flags>"` from the command line, split into flags, or undefined when absent. */
export function flagsOption(name: string): string[] | undefined {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? (process.argv[i + 1] ?? '').split(' ').filter(Boolean) : undefined
}

/**
 * A copy of the embedded default config whose backends all point at `simUrl` (the simulator
 * runs as a process of its own), serving only `pipelines` (gateway.yaml), with one key whose
 * secret is `key`.
 */
export function gatewayConfigFor(
  simUrl: string,
  key: string,
  backend: { connections?: number; capacity?: number; http2?: boolean } = {},
  pipelines: string[] = ['gateway.yaml'],
): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-'))
  for (const f of fs.readdirSync(defaultConfigDir))
    if (fs.statSync(path.join(defaultConfigDir, f)).isFile())
      fs.copyFileSync(path.join(defaultConfigDir, f), path.join(dir, f))
  const models = load(fs.readFileSync(path.join(dir, 'models.yaml'), 'utf8')) as {
    backends: Record<string, Record<string, unknown>>
  }
  for (const b of Object.values(models.backends)) Object.assign(b, { url: simUrl }, backend)
  fs.writeFileSync(path.join(dir, 'models.yaml'), dump(models))
  const server = load(fs.readFileSync(path.join(dir, 'server.yaml'), 'utf8')) as Record<string, unknown>
  server.simulator = { enabled: false }
  server.pipelines = pipelines
  fs.writeFileSync(path.join(dir, 'server.yaml'), dump(server))
  // The bench key may drive the simulator (idle streams are held open with x-sim-stall-ms).
  fs.writeFileSync(
    path.join(dir, 'keys.yaml'),
    dump({
      groups: { bench: { forward_headers: true } },
      keys: [{ id: 'bench', group: 'bench', hash: formatHash(hashSecret(key)) }],
    }),
  )
  return dir
}

/** A simulator config at zero latency (the gateway's cost is what is measured), with room for `maxRunning`. */
export function zeroLatencySimConfig(maxRunning = 1000): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-sim-')), 'simulator.yaml')
  const sim = load(fs.readFileSync(path.join(defaultConfigDir, 'simulator.yaml'), 'utf8')) as Record<string, unknown>
  sim.latency = { ttft_ms: 0, itl_ms: 0, jitter: 0 }
  sim.max_running = maxRunning
  sim.max_waiting = 100000
  fs.writeFileSync(file, dump(sim))
  return file
}

/** One load result as a line: requests per second, p50 and p99. */
export const formatLoad = (r: LoadResult) =>
  `${r.rps.toFixed(0).padStart(7)} req/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms   (${r.requests} ok, ${r.errors} errors)`
