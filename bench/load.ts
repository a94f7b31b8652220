/**
 * A closed-loop load generator: `connections` workers each send one request after another
 * over their own keep-alive connection, for at most `seconds` and at most `maxRequests`, and
 * every latency is kept for percentiles. Streamed replies are read to their end.
 */
import { Pool } from 'undici'

export interface LoadResult {
  requests: number
  errors: number
  seconds: number
  rps: number
  p50: number
  p99: number
}

export interface LoadOptions {
  url: string
  path: string
  body: string
  headers: Record<string, string>
  connections: number
  seconds: number
  maxRequests: number
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const origin = new URL(o.url).origin
  const base = new URL(o.url).pathname.replace(/\/$/, '')
  const pool = new Pool(origin, { connections: o.connections, pipelining: 1 })
  const latencies: number[] = []
  let errors = 0
  let sent = 0
  const started = performance.now()
  const deadline = started + o.seconds * 1000
  const worker = async () => {
    while (performance.now() < deadline && sent < o.maxRequests) {
      sent++
      const t0 = performance.now()
      try {
        const res = await pool.request({ path: base + o.path, method: 'POST', headers: o.headers, body: o.body })
        for await (const _ of res.body) void _
        if (res.statusCode !== 200) errors++
        else latencies.push(performance.now() - t0)
      } catch {
        errors++
      }
    }
  }
  await Promise.all(Array.from({ length: o.connections }, worker))
  const seconds = (performance.now() - started) / 1000
  await pool.close()
  latencies.sort((a, b) => a - b)
  return { requests: latencies.length, errors, seconds, rps: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) }
}
