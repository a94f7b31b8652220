/**
 * The heap of this process (the gateway and its simulator run in it), measured after a full
 * collection when one can be forced: `global.gc` under --expose-gc, else V8's flag set at run
 * time (the documented way to reach gc from a running process).
 */
import v8 from 'node:v8'
import vm from 'node:vm'

function collector(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: () => void }).gc
  if (exposed) return exposed
  try {
    v8.setFlagsFromString('--expose-gc')
    return vm.runInNewContext('gc') as () => void
  } catch {
    return undefined
  }
}

export interface HeapSample {
  heapUsed: number
  rss: number
  /** Whether a full collection ran first (else the figure includes garbage). */
  collected: boolean
}

/** Waits for timers and sockets to settle, collects, and samples. */
export async function settledHeap(settleMs = 300): Promise<HeapSample> {
  const gc = collector()
  await new Promise((r) => setTimeout(r, settleMs))
  if (gc) {
    for (let i = 0; i < 3; i++) {
      gc()
      await new Promise((r) => setImmediate(r))
    }
  }
  const m = process.memoryUsage()
  return { heapUsed: m.heapUsed, rss: m.rss, collected: gc !== undefined }
}

export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`
