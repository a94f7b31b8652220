/**
 * vLLM's admission in miniature: at most `max_running` requests generate at once (max-num-seqs),
 * the rest wait in a first-in-first-out line, and a full line refuses with 429 as
 * llm-d-inference-sim does. Admission is synchronous when a slot is free, so the zero-latency
 * path never waits on a promise.
 */
import { SimError } from './api-error.js'
import type { RequestLife } from './active-requests.js'

export interface SchedulerLimits {
  maxRunning: number
  maxWaiting: number
}

interface Waiter {
  settle: (started: boolean) => void
  state: 'waiting' | 'started' | 'cancelled'
}

/** `turn` resolves true when the request starts running, false when it left the line first. */
export type Admission = { kind: 'running' } | { kind: 'waiting'; turn: Promise<boolean>; cancel: () => void }

export class Scheduler {
  private runningCount = 0
  private waitingCount = 0
  private readonly line: Array<Waiter | undefined> = []
  private head = 0

  constructor(private readonly limits: SchedulerLimits) {}

  get running(): number {
    return this.runningCount
  }

  get waiting(): number {
    return this.waitingCount
  }

  /** Takes a running slot now, or a place in line; throws 429 when the line is full. */
  admit(): Admission {
    if (this.runningCount < this.limits.maxRunning && this.waitingCount === 0) {
      this.runningCount++
      return { kind: 'running' }
    }
    if (this.waitingCount >= this.limits.maxWaiting) {
      throw new SimError(429, 'Failed to enqueue request, the waiting queue is full')
    }
    const waiter: Waiter = { settle: () => {}, state: 'waiting' }
    const turn = new Promise<boolean>((resolve) => {
      waiter.settle = resolve
    })
    this.line.push(waiter)
    this.waitingCount++
    const cancel = (): void => {
      // Only a request still in line leaves it; one that started gives its slot back with release().
      if (waiter.state !== 'waiting') return
      waiter.state = 'cancelled'
      this.waitingCount--
      waiter.settle(false)
    }
    return { kind: 'waiting', turn, cancel }
  }

  /** Gives the slot back and starts the next request in line, if any. */
  release(): void {
    this.runningCount--
    this.startNext()
  }

  private startNext(): void {
    while (this.runningCount < this.limits.maxRunning && this.head < this.line.length) {
      const waiter = this.line[this.head]
      this.line[this.head] = undefined
      this.head++
      if (!waiter || waiter.state !== 'waiting') continue
      waiter.state = 'started'
      this.waitingCount--
      this.runningCount++
      waiter.settle(true)
    }
    // Compact the array now and then so a long-lived line does not grow without bound.
    if (this.head > 1024 && this.head * 2 > this.line.length) {
      this.line.splice(0, this.head)
      this.head = 0
    }
  }
}

/**
 * Waits for a waiting admission's turn; a client that goes meanwhile gives its place up.
 * True when the request may run.
 */
export async function waitForSlot(admission: Admission, life: RequestLife): Promise<boolean> {
  if (admission.kind === 'running') return true
  if (life.signal.aborted) {
    admission.cancel()
    return false
  }
  const leave = (): void => admission.cancel()
  life.signal.addEventListener('abort', leave, { once: true })
  const started = await admission.turn
  life.signal.removeEventListener('abort', leave)
  return started
}
