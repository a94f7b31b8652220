/** The fair queues of one process: a VtcPool per backend pool, with waits bounded by time and signal. */
import type { Admission, FairQueues, PoolLoad, QueueRequest, QueueSlot } from './fair-queues.js'
import { VtcPool } from './vtc-pool.js'

export class MemoryQueues implements FairQueues {
  private readonly pools = new Map<string, VtcPool>()

  private pool(name: string): VtcPool {
    let pool = this.pools.get(name)
    if (!pool) {
      pool = new VtcPool()
      this.pools.set(name, pool)
    }
    return pool
  }

  acquire(request: QueueRequest): Promise<Admission> {
    const started = performance.now()
    const waited = () => Math.round(performance.now() - started)
    if (request.signal.aborted) return Promise.resolve({ kind: 'aborted', waitedMs: 0 })
    const pool = this.pool(request.pool)
    // A free slot and nobody waiting: no line, no timer, no listener.
    const slot = pool.tryStart(request)
    if (slot) return Promise.resolve({ kind: 'granted', slot, waitedMs: 0 })
    return new Promise<Admission>((resolve) => {
      let timer: NodeJS.Timeout | undefined
      const onAbort = () => {
        if (pool.cancel(waiter)) finish({ kind: 'aborted', waitedMs: waited() })
      }
      const finish = (admission: Admission) => {
        clearTimeout(timer)
        request.signal.removeEventListener('abort', onAbort)
        resolve(admission)
      }
      const waiter = pool.enqueue(request, (slot: QueueSlot) => finish({ kind: 'granted', slot, waitedMs: waited() }))
      // Granted at once: no timer, no listener.
      if (!pool.isWaiting(waiter)) return
      timer = setTimeout(() => {
        if (pool.cancel(waiter)) finish({ kind: 'timeout', waitedMs: waited() })
      }, request.timeoutMs)
      request.signal.addEventListener('abort', onAbort, { once: true })
    })
  }

  load(): readonly PoolLoad[] {
    const out: PoolLoad[] = []
    for (const [pool, p] of this.pools)
      for (const [model, m] of p.models) out.push({ pool, model, waiting: m.waiting, running: m.running })
    return out
  }

  close(): void {
    for (const p of this.pools.values()) p.close()
  }
}
