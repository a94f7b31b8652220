/**
 * Process and event-loop series under the names prom-client's default metrics use (so the
 * usual Node.js dashboards work): CPU seconds, resident memory, heap, open handles, start
 * time, and the event loop's delay (p50/p90/p99/max since the last scrape, from
 * perf_hooks.monitorEventLoopDelay, which samples on a timer of its own: nothing per request).
 */
import fs from 'node:fs'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import type { Metrics } from '../../kernel/contract/index.js'

const NO_LABELS = {}
const one = (v: number) => [[NO_LABELS, v] as const]

export function registerProcessMetrics(metrics: Metrics): { close(): void } {
  const started = Date.now() / 1000 - process.uptime()
  const loop = monitorEventLoopDelay({ resolution: 20 })
  loop.enable()
  metrics.collectedCounter('process_cpu_user_seconds_total', 'User CPU time spent, in seconds.', () =>
    one(process.cpuUsage().user / 1e6),
  )
  metrics.collectedCounter('process_cpu_system_seconds_total', 'System CPU time spent, in seconds.', () =>
    one(process.cpuUsage().system / 1e6),
  )
  metrics.collectedCounter('process_cpu_seconds_total', 'User and system CPU time spent, in seconds.', () => {
    const cpu = process.cpuUsage()
    return one((cpu.user + cpu.system) / 1e6)
  })
  metrics.gauge('process_start_time_seconds', 'Start time of the process since the Unix epoch, in seconds.', () =>
    one(Math.round(started)),
  )
  metrics.gauge('process_resident_memory_bytes', 'Resident memory size, in bytes.', () =>
    one(process.memoryUsage.rss()),
  )
  metrics.gauge('process_open_fds', 'Open file descriptors (Linux).', () => {
    try {
      return one(fs.readdirSync('/proc/self/fd').length)
    } catch {
      return []
    }
  })
  metrics.gauge('nodejs_heap_size_total_bytes', 'Heap size of V8, in bytes.', () =>
    one(process.memoryUsage().heapTotal),
  )
  metrics.gauge('nodejs_heap_size_used_bytes', 'Heap used by V8, in bytes.', () => one(process.memoryUsage().heapUsed))
  metrics.gauge('nodejs_external_memory_bytes', 'Memory of C++ objects bound to JavaScript objects, in bytes.', () =>
    one(process.memoryUsage().external),
  )
  metrics.gauge('nodejs_active_handles_total', 'Active libuv handles (sockets, timers, servers).', () =>
    one(process.getActiveResourcesInfo().length),
  )
  // Read, then reset: each scrape reports the delay seen since the previous one.
  const delay = (read: () => number) => () => one(Number.isFinite(read()) ? read() / 1e9 : 0)
  metrics.gauge(
    'nodejs_eventloop_lag_p50_seconds',
    'Event loop delay, median since the last scrape, in seconds.',
    delay(() => loop.percentile(50)),
  )
  metrics.gauge(
    'nodejs_eventloop_lag_p90_seconds',
    'Event loop delay, 90th percentile since the last scrape, in seconds.',
    delay(() => loop.percentile(90)),
  )
  metrics.gauge(
    'nodejs_eventloop_lag_p99_seconds',
    'Event loop delay, 99th percentile since the last scrape, in seconds.',
    delay(() => loop.percentile(99)),
  )
  metrics.gauge(
    'nodejs_eventloop_lag_max_seconds',
    'Event loop delay, largest since the last scrape, in seconds.',
    () => {
      const max = loop.max
      loop.reset()
      return one(Number.isFinite(max) ? max / 1e9 : 0)
    },
  )
  return { close: () => loop.disable() }
}
