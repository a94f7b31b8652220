/**
 * The per-request cost of what the kernel observes at a request's end (request series, access
 * log line, trace context), measured alone: RequestObserver.end over many finished Exchanges,
 * the access log written to /dev/null in its batches. Prints microseconds per request, with
 * and without the access log, with a client traceparent to continue, and with OpenTelemetry
 * spans (the SDK with an exporter that drops what it is given: the spans' cost, not a
 * collector's): a request span, its queue wait and one model call.
 *
 *   npm run bench -- observe            (or: node dist/bench/observe.js [--requests 200000])
 */
import { createExchange } from '../kernel/run/create-exchange.js'
import { createLogger } from '../kernel/contract/log.js'
import { MetricsRegistry } from '../kernel/services/metrics/metrics.js'
import { RequestObserver } from '../kernel/services/observe/request-observer.js'
import { option } from './bench-setup.js'
import { OtelTraces } from '../bin/otel-traces.js'
import type { SpanExporter } from '@opentelemetry/sdk-trace-base'
import type { ModelConfig } from '../schemas/models.schema.js'

const REQUESTS = option('requests', 200_000)
const SLICE = 2000
const log = createLogger({ level: 'error' })
const route = { id: 'chat', pipeline: 'gateway', file: 'gateway.yaml' }

function finished(traceparent?: string) {
  const ex = createExchange({
    route,
    transport: 'http',
    method: 'POST',
    path: '/v1/chat/completions',
    headers: traceparent ? { traceparent } : {},
    headerPrefix: 'x-gateway-',
    timeoutMs: 60_000,
    log,
    principal: { keyId: 'bench', group: 'demo', legacy: false },
  })
  ex.settle()
  ex.usage.model = 'sim-chat-instruct'
  ex.usage.firstTokenAt = ex.startedAt + 3
  ex.usage.report({ inputTokens: 12, outputTokens: 30 })
  return ex
}

const model = { id: 'sim-chat-instruct', backend: 'sim' } as ModelConfig

/** What the request's steps and its model call tell the exporter, when traces are exported. */
function served(ex: ReturnType<typeof finished>): void {
  ex.state.queue = {
    since: ex.startedAt,
    waitedMs: 0,
    slot: { release: () => undefined },
    pool: 'sim',
    promptEstimate: 12,
  }
  ex.state.trace?.modelCall?.(model, '/v1/chat/completions').sentTo('127.0.0.1:8000')
}

async function run(label: string, observer: RequestObserver, traceparent?: string): Promise<void> {
  const outcome = { kind: 'done', status: 200 } as const
  // In slices, with a pause between them for the access log's timer to write its batch (as
  // under load) and for the slice's Exchanges, made beforehand, to be collected; only the
  // calls are timed.
  let ns = 0
  for (let from = -SLICE; from < REQUESTS; from += SLICE) {
    const exchanges = Array.from({ length: SLICE }, () => finished(traceparent))
    const t0 = process.hrtime.bigint()
    for (const ex of exchanges) {
      observer.start(ex)
      served(ex)
      observer.end(ex, outcome)
    }
    // The first slice warms up.
    if (from >= 0) ns += Number(process.hrtime.bigint() - t0)
    await new Promise((resolve) => setTimeout(resolve, 15))
  }
  console.log(`${label.padEnd(52)} ${(ns / REQUESTS / 1000).toFixed(2)} µs/request`)
}

console.log(`RequestObserver.end, ${REQUESTS} requests, node ${process.version}`)
const withLog = RequestObserver.open(
  new MetricsRegistry(),
  { to: '/dev/null', flushMs: 10, maxBufferedBytes: 1 << 30 },
  '/',
  Date.now,
)
await run('series + access log line + fresh trace id', withLog)
await run(
  'series + access log line + client traceparent',
  withLog,
  `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01`,
)
await withLog.close()
const seriesOnly = RequestObserver.open(new MetricsRegistry(), undefined, '/', Date.now)
await run('series only (access_log.enabled: false)', seriesOnly)
await seriesOnly.close()
// A slice ends its spans in one synchronous burst: a queue that holds them all, so none is dropped unmeasured.
process.env.OTEL_BSP_MAX_QUEUE_SIZE = String(SLICE * 4)
const discard: SpanExporter = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => undefined }
const traced = RequestObserver.open(
  new MetricsRegistry(),
  { to: '/dev/null', flushMs: 10, maxBufferedBytes: 1 << 30 },
  '/',
  Date.now,
  { traces: new OtelTraces(discard, '0') },
)
await run('series + access log line + OTel spans (3 a request)', traced)
await run(
  'series + access log line + OTel spans, client traceparent',
  traced,
  `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01`,
)
await traced.close()
