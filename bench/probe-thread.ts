/**
 * A liveness probe on a thread of its own: `GET /healthz` every `everyMs` until stopped, and the
 * longest wait between two answers. On the bench's main thread the probe also waited for the
 * client's own work (encoding a 60 MiB request, reading a 79 MB reply: up to 0.4 s), which was
 * then counted against the gateway; here only the gateway (and the machine) can delay it.
 */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'

export interface ProbeResult {
  answered: number
  failed: number
  longestGapMs: number
}

export interface Probe {
  stop(): Promise<ProbeResult>
}

export async function startProbe(url: string, everyMs: number): Promise<Probe> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { url, everyMs } })
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve())
    worker.once('error', reject)
  })
  return {
    async stop() {
      const result = new Promise<ProbeResult>((resolve, reject) => {
        worker.once('message', resolve)
        worker.once('error', reject)
      })
      worker.postMessage('stop')
      const got = await result
      await worker.terminate()
      return got
    },
  }
}

async function probeLoop(url: string, everyMs: number): Promise<void> {
  let running = true
  let answered = 0
  let failed = 0
  let last = performance.now()
  let longest = 0
  parentPort!.once('message', () => (running = false))
  parentPort!.postMessage('started')
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
    await new Promise((r) => setTimeout(r, Math.max(0, everyMs - (now - sent))))
  }
  longest = Math.max(longest, performance.now() - last)
  parentPort!.postMessage({ answered, failed, longestGapMs: longest } satisfies ProbeResult)
}

if (!isMainThread) {
  const { url, everyMs } = workerData as { url: string; everyMs: number }
  void probeLoop(url, everyMs)
}
