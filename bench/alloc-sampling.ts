/**
 * Where the gateway's allocations come from, collected or not: loaded into a server with
 * `node --import ./dist/bench/alloc-sampling.js …`, V8's sampling heap profiler runs from the
 * start (one sample about every 32 KB allocated, objects the collectors freed kept in the
 * profile, which a `--heap-prof` profile drops), and at SIGTERM or exit the profile is written to
 * SLUICE_ALLOC_PROFILE (default `alloc-<pid>.heapprofile`, readable by Chrome's DevTools), with
 * the collections of the main thread's heap beside it (`<file>.gc.json`: count and milliseconds
 * of scavenges and of mark-compacts).
 * `node dist/bench/alloc-summary.js <file> [requests]` sums it by function and by file. The
 * young generation's size and the promotions a request causes follow from the bytes a request
 * allocates, which a CPU profile does not show. Not loaded by anything in the product.
 */
import fs from 'node:fs'
import { Session } from 'node:inspector'
import { constants, PerformanceObserver } from 'node:perf_hooks'
import { isMainThread } from 'node:worker_threads'

if (isMainThread) {
  const session = new Session()
  session.connect()
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 32 * 1024,
    includeObjectsCollectedByMajorGC: true,
    // SLUICE_ALLOC_PROMOTED=1: only what outlived the young generation (promoted, or still alive).
    includeObjectsCollectedByMinorGC: process.env.SLUICE_ALLOC_PROMOTED !== '1',
  })
  const file = process.env.SLUICE_ALLOC_PROFILE ?? `alloc-${process.pid}.heapprofile`
  const gc = { scavenges: 0, scavengeMs: 0, markCompacts: 0, markCompactMs: 0 }
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as { detail?: { kind?: number } }).detail?.kind
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) gc.scavenges++, (gc.scavengeMs += e.duration)
      else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) gc.markCompacts++, (gc.markCompactMs += e.duration)
    }
  }).observe({ entryTypes: ['gc'] })
  let written = false
  const write = () => {
    if (written) return
    written = true
    // Whole or not at all: a bench reads it as soon as it appears.
    fs.writeFileSync(`${file}.gc.json.part`, JSON.stringify(gc))
    fs.renameSync(`${file}.gc.json.part`, `${file}.gc.json`)
    session.post('HeapProfiler.stopSampling', (err, result) => {
      if (!err) fs.writeFileSync(file, JSON.stringify(result.profile))
    })
  }
  process.on('exit', write)
  // The gateway's own SIGTERM handler closes it and exits; the profile is written first.
  process.prependListener('SIGTERM', write)
}
