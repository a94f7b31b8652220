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

/** One pool to the target and the tally of its replies: each request read to its end, timed from `from`. */
function session(o: Pick<LoadOptions, 'url' | 'path' | 'headers' | 'body' | 'connections'>) {
  const base = new URL(o.url).pathname.replace(/\/$/, '')
  const pool = new Pool(new URL(o.url).origin, { connections: o.connections, pipelining: 1 })
  const latencies: number[] = []
  let errors = 0
  const started = performance.now()
  return {
    started,
    async send(from: number): Promise<void> {
      try {
        const res = await pool.request({ path: base + o.path, method: 'POST', headers: o.headers, body: o.body })
        for await (const _ of res.body) void _
        if (res.statusCode !== 200) errors++
        else latencies.push(performance.now() - from)
      } catch {
        errors++
      }
    },
    async result(): Promise<LoadResult> {
      const seconds = (performance.now() - started) / 1000
      await pool.close()
      latencies.sort((a, b) => a - b)
      return {
        requests: latencies.length,
        errors,
        seconds,
        rps: latencies.length / seconds,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
      }
    },
  }
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const s = session(o)
  const deadline = s.started + o.seconds * 1000
  let sent = 0
  const worker = async () => {
    while (performance.now() < deadline && sent < o.maxRequests) {
      sent++
      await s.send(performance.now())
    }
  }
  await Promise.all(Array.from({ length: o.connections }, worker))
  return s.result()
}

/**
 * An open-loop load: requests are started at a fixed rate whatever the replies do, and each
 * latency is measured from the moment its request was due (so a server that falls behind is
 * charged for the wait: no coordinated omission). At a rate both servers can carry, the
 * percentiles say what latency a server adds, which a closed loop at fixed concurrency cannot:
 * there, latency is concurrency ÷ throughput for any server.
 */
export async function runRate(o: Omit<LoadOptions, 'maxRequests'> & { rate: number }): Promise<LoadResult> {
  const s = session(o)
  const total = Math.round(o.rate * o.seconds)
  const inflight: Promise<void>[] = []
  for (let i = 0; i < total; i++) {
    const due = s.started + (i * 1000) / o.rate
    const wait = due - performance.now()
    if (wait > 1) await new Promise((r) => setTimeout(r, wait))
    // Sent up to 1 ms early (timers have 1 ms steps): timed from the send then, never from before it.
    inflight.push(s.send(Math.min(due, performance.now())))
  }
  await Promise.all(inflight)
  return s.result()
}
