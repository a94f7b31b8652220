/** The shared state of one process (the default); Redis's is in redis-state.ts. */
import type { SharedState } from './state.js'
import { MemoryLedger } from '../../../plugins/budget/ledger/memory-ledger.js'
import { MemoryQueues } from '../../../plugins/fair-queue/queues/memory-queues.js'

export function memoryState(now: () => number = Date.now): SharedState {
  const ledger = new MemoryLedger(now)
  const queues = new MemoryQueues()
  return {
    kind: 'memory',
    ledger,
    queues,
    async ping() {},
    async close() {
      ledger.close()
      queues.close()
    },
  }
}

/** A URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return '(unparseable url)'
  }
}
