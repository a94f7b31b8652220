/**
 * The fair queue's contract. Each backend pool runs at most `capacity` requests at once; the
 * rest wait, and a freed slot goes to the group that has been served least (tokens served,
 * divided by the group's weight), then, inside it, to the key served least: the Virtual
 * Token Counter of "Fairness in Serving Large Language Models" (Sheng et al., OSDI 2024),
 * applied at two levels. Work-conserving, with one bounded exception (anticipation, below).
 */
import type { PoolLoad } from '../../../kernel/contract/index.js'

export interface QueueRequest {
  /** The backend pool (models.yaml `backends.<name>`), whose capacity is shared. */
  readonly pool: string
  readonly capacity: number
  /** The catalog model, for metrics. */
  readonly model: string
  readonly group: string
  /** The group's share of a busy pool relative to other groups (keys.yaml `groups.<g>.weight`). */
  readonly groupWeight: number
  readonly key: string
  /** Service charged when the request starts (estimated prompt tokens); corrected at release. */
  readonly cost: number
  /** Longest wait; past it the answer is `timeout`. */
  readonly timeoutMs: number
  /** Aborts the wait (client gone, total time limit). */
  readonly signal: AbortSignal
  /**
   * After this request releases its slot, keep the slot for its key this long when that key
   * would be served next but has nothing waiting yet: a client sending one request after
   * another re-sends within a few milliseconds, and without this pause a flooding tenant would
   * take every slot it frees ("deceptive idleness", Iyer and Druschel, SOSP 2001). 0 = off.
   */
  readonly anticipationMs: number
}

export interface QueueSlot {
  /** Frees the slot and charges the service actually given (weighted tokens). Idempotent. */
  release(actualCost: number): void
}

export type Admission =
  | { readonly kind: 'granted'; readonly slot: QueueSlot; readonly waitedMs: number }
  | { readonly kind: 'timeout'; readonly waitedMs: number }
  | { readonly kind: 'aborted'; readonly waitedMs: number }

/** What a queue reports to kernel.load: its waiting and running requests per pool and model. */
export type { PoolLoad }

export interface FairQueues {
  acquire(request: QueueRequest): Promise<Admission>
  /** Waiting and running requests per pool and model, as this process sees them. */
  load(): readonly PoolLoad[]
}
