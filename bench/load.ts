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

/**
 * An open-loop load: requests are started at a fixed rate whatever the replies do, and each
 * latency is measured from the moment its request was due (so a server that falls behind is
 * charged for the wait: no coordinated omission). At a rate both servers can carry, the
 * percentiles say what latency a server adds, which a closed loop at fixed concurrency cannot:
 * there, latency is concurrency ÷ throughput for any server.
 */
export async function runRate(o: Omit<LoadOptions, 'connections' | 'maxRequests'> & { rate: number; connections: number }): Promise<LoadResult> {
  const origin = new URL(o.url).origin
  const base = new URL(o.url).pathname.replace(/\/$/, '')
  const pool = new Pool(origin, { connections: o.connections, pipelining: 1 })
  const latencies: number[] = []
  let errors = 0
  const total = Math.round(o.rate * o.seconds)
  const started = performance.now()
  const one = async (due: number) => {
    // Sent up to 1 ms early (timers have 1 ms steps): timed from the send then, never from before it.
    const from = Math.min(due, performance.now())
    try {
      const res = await pool.request({ path: base + o.path, method: 'POST', headers: o.headers, body: o.body })
      for await (const _ of res.body) void _
      if (res.statusCode !== 200) errors++
      else latencies.push(performance.now() - from)
    } catch {
      errors++
    }
  }
  const inflight: Promise<void>[] = []
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / o.rate
    const wait = due - performance.now()
    if (wait > 1) await new Promise((r) => setTimeout(r, wait))
    inflight.push(one(due))
  }
  await Promise.all(inflight)
  const seconds = (performance.now() - started) / 1000
  await pool.close()
  latencies.sort((a, b) => a - b)
  return { requests: latencies.length, errors, seconds, rps: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) }
}
