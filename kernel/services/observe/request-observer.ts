/**
 * What the kernel observes of every request once its reply has ended (the chain calls `end`
 * once, from `finishAll`, beside the finish phases): the request series (request-metrics.ts)
 * and, for client requests (HTTP, WebSocket messages; not in-process calls, whose model use is
 * in their usage records), one access-log line. All of it is synchronous and allocation-light:
 * counters, a JSON line appended to a buffer. When traces are exported, it also tells the
 * exporter of each request's start (`start`, from the lifecycle) and end.
 */
import type { Exchange } from '../../contract/exchange.js'
import type { Outcome } from '../../contract/plugin.js'
import type { Metrics } from '../../contract/metrics.js'
import { AccessLog, type AccessLogSettings } from './access-log.js'
import { RequestMetrics } from './request-metrics.js'
import { registerProcessMetrics } from '../../../protocols/prometheus/process-metrics.js'
import { traceOf, type TraceExporter } from './trace-context.js'
import { describeCause } from '../../contract/log.js'
import { clientAddress, type TrustedProxies } from '../../../protocols/http/forwarded.js'
import { errorCode } from '../../../protocols/http/status-names.js'

declare module '../../contract/exchange.js' {
  interface ExchangeState {
    /** The address of the socket a client request came on (HTTP, WebSocket). */
    peer?: string
  }
}

export class RequestObserver {
  private readonly requests: RequestMetrics
  private readonly processMetrics: { close(): void }
  private failed = false

  constructor(
    metrics: Metrics,
    private readonly accessLog: AccessLog | undefined,
    private readonly now: () => number,
    private readonly traces?: TraceExporter,
    private readonly proxies?: TrustedProxies,
  ) {
    this.requests = new RequestMetrics(metrics)
    this.processMetrics = registerProcessMetrics(metrics)
  }

  static open(
    metrics: Metrics,
    settings: AccessLogSettings | undefined,
    dataDir: string,
    now: () => number,
    options: { traces?: TraceExporter; trustedProxies?: TrustedProxies } = {},
  ): RequestObserver {
    const dropped = metrics.counter(
      'sluice_access_log_dropped_total',
      'Access-log lines dropped because the destination did not keep up.',
    )
    const log = settings ? new AccessLog(settings, dataDir, dropped) : undefined
    return new RequestObserver(metrics, log, now, options.traces, options.trustedProxies)
  }

  /** A request begins (the lifecycle): only an exporter of traces needs to know. */
  start(ex: Exchange): void {
    if (this.traces) ex.state.trace = this.traces.begin(ex)
  }

  /** Never throws: it runs inside the chain's finish, where a throw would lose the request's finish phases. */
  end(ex: Exchange, outcome: Outcome): void {
    try {
      const end = this.now()
      this.requests.end(ex, outcome, Math.max(0, end - ex.startedAt) / 1000)
      const logged = this.accessLog !== undefined && ex.transport !== 'internal'
      if (!logged && !this.traces) return
      // The client's address (X-Forwarded-For walked past trusted proxies) only for a line or a span that shows it.
      const peer = ex.state.peer
      const client = peer === undefined ? undefined : clientAddress(peer, this.proxies, ex)
      if (logged) this.log(ex, outcome, end, client)
      this.traces?.end(ex, outcome, end, client)
    } catch (err) {
      if (!this.failed)
        ex.log.error('request metrics or access log failed (reported once)', { cause: describeCause(err) })
      this.failed = true
    }
  }

  private log(ex: Exchange, outcome: Outcome, end: number, client: string | undefined): void {
    const usage = ex.usage
    // What the client was told: a reply composed from internal calls tells their usage.
    const used = usage.told()
    const trace = traceOf(ex)
    // One shape for every line (absent fields are undefined, which JSON leaves out): no spreads.
    this.accessLog!.write({
      time: new Date(end).toISOString(),
      request_id: ex.id,
      trace_id: trace.traceId,
      span_id: trace.spanId,
      parent_span_id: trace.parentId,
      transport: ex.transport,
      method: ex.method,
      path: ex.path,
      pipeline: ex.route.pipeline,
      route: ex.route.id,
      parent_request_id: ex.parentId,
      client_address: client,
      key_id: ex.principal?.keyId ?? null,
      group: ex.principal?.group ?? null,
      model: usage.toldModel ?? null,
      status: outcome.status,
      outcome: outcome.kind,
      error_code: errorCode(outcome),
      tokens_in: used.inputTokens,
      tokens_out: used.outputTokens,
      tokens_cached: used.cachedTokens,
      usage_source: used.source,
      queue_ms: ex.state.queue?.waitedMs ?? null,
      ttft_ms: usage.firstTokenAt === undefined ? null : Math.max(0, usage.firstTokenAt - ex.startedAt),
      duration_ms: Math.max(0, end - ex.startedAt),
    })
  }

  async close(): Promise<void> {
    this.processMetrics.close()
    await this.accessLog?.close()
    await this.traces?.close()
  }
}
