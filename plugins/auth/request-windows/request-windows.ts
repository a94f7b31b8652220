/**
 * The auth step's count of each key's requests in the last minute (keys.yaml or the admin API's
 * `requests_per_minute`): a sliding window of one-second buckets, so a key's state is at most 60
 * counts whatever its limit. A request is counted when it is let through; a refused one is not,
 * so a client that keeps knocking is let in again when the window has room.
 */

export const WINDOW_MS = 60_000

export interface RequestWindows {
  /**
   * Counts a request of `keyId` at `now` (epoch ms) if the last minute holds fewer than `limit`:
   * 0 when counted, else the milliseconds until enough of the counted requests leave the window.
   * In memory the answer is at hand; in Redis it comes with the turn's one script call.
   */
  take(keyId: string, limit: number, now: number): number | Promise<number>
  close(): void | Promise<void>
}

interface Window {
  /** Start seconds of the buckets, oldest first, and their counts. */
  readonly secs: number[]
  readonly counts: number[]
  total: number
}

/** Windows kept before idle ones are swept (each is at most 60 numbers). */
const SWEEP_AT = 10_000

/** One process's windows (the embedded default): exact for that process. */
export class MemoryRequestWindows implements RequestWindows {
  private readonly windows = new Map<string, Window>()

  take(keyId: string, limit: number, now: number): number {
    const sec = Math.floor(now / 1000)
    let w = this.windows.get(keyId)
    if (!w) {
      if (this.windows.size >= SWEEP_AT) this.sweep(sec)
      w = { secs: [], counts: [], total: 0 }
      this.windows.set(keyId, w)
    }
    // A bucket leaves the window 60 s after its second began.
    while (w.secs.length > 0 && w.secs[0]! <= sec - 60) {
      w.secs.shift()
      w.total -= w.counts.shift()!
    }
    if (w.total < limit) {
      const last = w.secs.length - 1
      if (last >= 0 && w.secs[last] === sec) w.counts[last]!++
      else {
        w.secs.push(sec)
        w.counts.push(1)
      }
      w.total++
      return 0
    }
    // Room for one more when this many have left (more than one after the limit was lowered).
    const need = w.total - limit + 1
    let freed = 0
    for (let i = 0; i < w.secs.length; i++) {
      freed += w.counts[i]!
      if (freed >= need) return (w.secs[i]! + 60) * 1000 - now
    }
    return WINDOW_MS
  }

  private sweep(sec: number): void {
    for (const [keyId, w] of this.windows) if ((w.secs.at(-1) ?? 0) <= sec - 60) this.windows.delete(keyId)
  }

  close(): void {
    this.windows.clear()
  }
}
