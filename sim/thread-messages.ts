/** What sim/thread.ts and the simulator's worker thread (sim/thread-main.ts) say to each other. */
import type { SimulatorStats } from './index.js'
import type { SimConfigInput } from './schema.js'

export interface ThreadData {
  config: SimConfigInput
  host: string
  port: number
}

export type ThreadRequest = { kind: 'stats'; id: number } | { kind: 'close' } | { kind: 'reclaim' }

export type ThreadReply =
  | { kind: 'listening'; url: string; port: number }
  | { kind: 'failed'; message: string }
  | { kind: 'log'; line: string }
  | { kind: 'stats'; id: number; stats: SimulatorStats }
  | { kind: 'closed' }
