/**
 * How busy each backend pool is, as this process sees it: requests waiting and running per pool
 * and model. The fair queue that holds them reports here (fair-queue's `open`); readers (the
 * admin API's models view, `model: auto`) read here, so that none of them imports the queue.
 * Nothing reports when no route queues: readers then see every pool idle.
 */

export interface PoolLoad {
  readonly pool: string
  readonly model: string
  readonly waiting: number
  readonly running: number
}

export interface QueueLoad {
  /** Waiting and running requests per pool and model, from every queue that reports; [] when none does. */
  pools(): readonly PoolLoad[]
  /** A queue reports its load; the returned function withdraws it (when the queue closes). */
  report(source: () => readonly PoolLoad[]): () => void
}
