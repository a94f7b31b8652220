/**
 * Requests that wait on timers: each gets an AbortSignal that fires when its client goes away
 * or the simulator closes, so no work (and no timer) outlives either. Zero-latency requests
 * never come here.
 */
import type { ServerResponse } from 'node:http'
import { setTimeout as delay } from 'node:timers/promises'

export interface RequestLife {
  readonly signal: AbortSignal
  /** Forget the request: it ended. */
  close(): void
}

export class ActiveRequests {
  private readonly controllers = new Set<AbortController>()

  get size(): number {
    return this.controllers.size
  }

  open(res: ServerResponse): RequestLife {
    const controller = new AbortController()
    this.controllers.add(controller)
    const onClose = (): void => {
      // 'close' also follows a normal end; only an unfinished reply means the client left.
      if (!res.writableFinished) controller.abort()
    }
    res.on('close', onClose)
    return {
      signal: controller.signal,
      close: () => {
        this.controllers.delete(controller)
        res.off('close', onClose)
      },
    }
  }

  abortAll(): void {
    for (const controller of this.controllers) controller.abort()
    this.controllers.clear()
  }
}

/** Waits `ms`; resolves false (and clears its timer) as soon as `signal` aborts. */
export async function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false
  if (ms <= 0) return true
  try {
    await delay(ms, undefined, { signal })
    return true
  } catch {
    return false
  }
}
