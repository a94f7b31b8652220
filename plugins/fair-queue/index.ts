/**
 * fair-queue: keeps each backend pool to its capacity (models.yaml `backends.<name>.capacity`)
 * and, when it is full, lets requests wait in a fair line: a freed slot goes to the group
 * served least by tokens (divided by its weight, keys.yaml `groups.<g>.weight`), then to that
 * group's key served least (the Virtual Token Counter, OSDI 2024). The wait ends at
 * `limits.queue_timeout_ms` with 503 "timed out waiting for model capacity" and
 * `Retry-After: 5`, and never outlasts the request's total time limit. The slot is held until
 * the reply ends — a stream keeps it while it flows — and freed in `finish`, however the reply
 * ended; the service charged is then corrected to the tokens actually used. The queues and what
 * the service estimates learned are the plugin's state (queues/open-queues.ts): opened once per
 * process, kept across reloads.
 */
import { GatewayError, definePlugin } from '../../kernel/contract/index.js'
import type { QueueSlot } from './queues/fair-queues.js'
import { configSchema } from './schema.js'
import { weighted } from './service-estimate.js'
import { openQueues } from './queues/open-queues.js'

declare module '../../kernel/contract/index.js' {
  interface ExchangeState {
    queue?: {
      /** When the wait for a slot began, epoch ms (a trace's queue span). */
      since: number
      /** Time spent waiting for a slot, ms. */
      waitedMs: number
      slot: QueueSlot
      pool: string
      promptEstimate: number
    }
  }
}

/** Seconds buckets of the wait-time histogram: from "no wait" to the 5-minute limit. */
const WAIT_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]

export default definePlugin({
  name: 'fair-queue',
  config: configSchema,
  requires: ['principal', 'model'],
  provides: ['queue'],
  meters: 'queue',
  open: openQueues,
  setup(config, kernel, state, step) {
    const { queues } = state
    const weights = { prompt: config.prompt_weight, completion: config.completion_weight }
    // Learned per route and pool, as each route's requests run there.
    const serviceOf = (pool: string) => state.estimate(step.route, pool)
    const waits = kernel.metrics.histogram(
      'sluice_queue_wait_seconds',
      'Time requests waited for model capacity.',
      WAIT_BUCKETS,
    )
    const waitsOf = new Map<string, { observe(value: number): void }>()
    const waitSeries = (model: string) => {
      let series = waitsOf.get(model)
      if (!series) {
        series = waits.series({ model })
        waitsOf.set(model, series)
      }
      return series
    }
    const timeouts = kernel.metrics.counter(
      'sluice_queue_timeouts_total',
      'Requests that gave up waiting for model capacity (503).',
    )
    kernel.metrics.gauge(
      'sluice_queue_waiting',
      'Requests of this process waiting for model capacity, per model.',
      () => queues.load().map((l) => [{ model: l.model, pool: l.pool }, l.waiting] as const),
    )
    kernel.metrics.gauge(
      'sluice_queue_running',
      'Requests of this process holding a slot of model capacity, per model.',
      () => queues.load().map((l) => [{ model: l.model, pool: l.pool }, l.running] as const),
    )
    kernel.metrics.gauge('sluice_queue_capacity', 'Concurrent requests each backend pool takes (models.yaml).', () =>
      Object.entries(kernel.config.models.backends).map(([pool, b]) => [{ pool }, b.capacity ?? 8] as const),
    )
    return {
      async request(ex, next) {
        const model = ex.state.model!.model
        const pool = model.backend
        const principal = ex.principal
        const group = principal?.group ?? ''
        const promptEstimate = ex.usage.demand().inputTokens
        const cost = serviceOf(pool).charge(promptEstimate, weights)
        const limits = kernel.config.server.limits
        const request = {
          pool,
          capacity: kernel.catalog.backend(pool)?.capacity ?? kernel.config.models.backends[pool]?.capacity ?? 8,
          model: model.id,
          group,
          groupWeight: kernel.keys.group(group)?.weight ?? 1,
          key: principal?.keyId ?? '',
          cost,
          timeoutMs: limits.queue_timeout_ms,
          // Waiting counts toward the request's total time limit: its deadline aborts this signal.
          signal: ex.signal,
          anticipationMs: config.anticipation_ms,
        }
        const since = Date.now()
        const admission = await queues.acquire(request).catch((err: unknown) => {
          throw new GatewayError(503, 'queue state is unavailable', { headers: { 'retry-after': '5' }, cause: err })
        })
        waitSeries(model.id).observe(admission.waitedMs / 1000)
        if (admission.kind === 'aborted') throw ex.signal.reason ?? new GatewayError(499, 'client closed the request')
        if (admission.kind === 'timeout') {
          timeouts.inc({ model: model.id })
          throw new GatewayError(503, 'timed out waiting for model capacity', {
            code: 'capacity_timeout',
            headers: { 'retry-after': '5' },
          })
        }
        ex.state.queue = { since, waitedMs: admission.waitedMs, slot: admission.slot, pool, promptEstimate }
        await next()
      },
      finish(ex) {
        const q = ex.state.queue
        if (!q) return
        const service = serviceOf(q.pool)
        const used = ex.usage.used()
        if (used.source === 'reported') {
          service.learn(q.promptEstimate, used.inputTokens, used.outputTokens)
          q.slot.release(weighted(weights, used.inputTokens, used.outputTokens))
        } else if (used.source === 'none') {
          // Refused or failed before any token: nothing was served.
          q.slot.release(0)
        } else {
          // Cut or abandoned without a usage report: the prompt's guess (the estimate runs high) and what streamed.
          q.slot.release(weighted(weights, service.guessPrompt(q.promptEstimate), used.outputTokens))
        }
      },
    }
  },
})
