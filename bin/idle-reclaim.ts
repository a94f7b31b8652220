/**
 * Gives memory back once a burst is over. V8 keeps the heap a large request grew (a 60 MiB
 * body, an 80 MB reply) until it next needs to collect, which on a quiet gateway may be never:
 * after issue 31's hostile requests RSS stayed at 657 MB (from 160 at start) for minutes,
 * though one full collection brought the main heap back to 31 MB and its buffers to 4 MB.
 *
 * Every `intervalMs`, when the process has grown more than `slackMb` past its floor and the
 * event loop was quiet over the whole interval, one full collection runs here and in the
 * threads that asked to be told (the embedded simulator), and at the next look, if RSS is still
 * up, one that compacts. What is still there at the look after that is live, and becomes the
 * floor: a cache that grew is not collected again and again (a floor set before the freed pages
 * went back to the OS moves down to where RSS falls). Needs
 * `--expose-gc` (in the start flags); without it this does nothing.
 */
import { performance } from 'node:perf_hooks'
import v8 from 'node:v8'

export interface Reclaimable {
  reclaim(): void
}

export interface IdleReclaimOptions {
  /** How often to look; 5 s. */
  intervalMs?: number
  /** Growth over the floor that is worth a collection; 64 MB. */
  slackMb?: number
  /** Event-loop utilization at or under which the interval counts as quiet; 0.02. */
  quiet?: number
  /** The process's resident memory, in bytes (a test gives its own). */
  rss?: () => number
}

export function reclaimWhenIdle(threads: () => readonly Reclaimable[], options: IdleReclaimOptions = {}): () => void {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) return () => undefined
  const look = reclaimer(gc, threads, options, compacting(gc))
  const timer = setInterval(look, options.intervalMs ?? 5000).unref()
  return () => clearInterval(timer)
}

/**
 * One look: collect, compact, move the floor, or leave it. Apart from the timer so that a test
 * drives it look by look. `compact` runs at the look after a collection, while RSS is still up:
 * a compaction picks its pages by what the previous marking found alive on them.
 */
export function reclaimer(
  gc: () => void,
  threads: () => readonly Reclaimable[],
  options: IdleReclaimOptions = {},
  compact: () => void = () => undefined,
): () => void {
  const slack = (options.slackMb ?? 64) * 1024 * 1024
  const quiet = options.quiet ?? 0.02
  const rssNow = options.rss ?? process.memoryUsage.rss
  let floor = rssNow()
  let step: 'none' | 'collected' | 'compacted' = 'none'
  let last = performance.eventLoopUtilization()
  return () => {
    const busy = performance.eventLoopUtilization(last).utilization
    last = performance.eventLoopUtilization()
    const rss = rssNow()
    // The OS may take a collection's pages back only after the look that set the floor.
    if (rss < floor) floor = rss
    if (rss <= floor + slack) step = 'none'
    else if (step === 'collected') {
      if (busy <= quiet) compact()
      step = 'compacted'
    } else if (step === 'compacted') {
      floor = rss
      step = 'none'
    } else if (busy <= quiet) {
      gc()
      for (const thread of threads()) thread.reclaim()
      step = 'collected'
    }
  }
}

/**
 * A full collection that also compacts every page it can. A burst leaves what stays alive spread
 * over many pages that are mostly garbage, and a plain collection keeps most of them: with 10,000
 * idle streams open, one left a 253 MB heap for 51 MB alive (RSS 394 MB); a compacting one
 * after it, 85 MB (RSS 226 MB). V8 reads the flag at each full collection; it is on for this one.
 */
function compacting(gc: () => void): () => void {
  return () => {
    v8.setFlagsFromString('--compact-on-every-full-gc')
    try {
      gc()
    } finally {
      v8.setFlagsFromString('--no-compact-on-every-full-gc')
    }
  }
}
