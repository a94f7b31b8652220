/**
 * The request series, in Prometheus conventions and the OpenTelemetry semantic conventions
 * (HTTP and GenAI), translated to Prometheus names as the OpenTelemetry Prometheus exporter
 * does (dots become underscores, the unit `s` becomes the suffix `_seconds`):
 *   http.server.request.duration       → http_server_request_duration_seconds
 *   gen_ai.server.request.duration     → gen_ai_server_request_duration_seconds
 *   gen_ai.server.time_to_first_token  → gen_ai_server_time_to_first_token_seconds
 *   gen_ai.client.token.usage          → gen_ai_client_token_usage (gen_ai_token_type input|output)
 * plus sluice_requests_total{pipeline,route,status,model} and sluice_upstream_errors_total.
 * Labels are route ids, methods, statuses and catalog model ids: bounded sets, never a key,
 * a group or request content. The series of a label set are resolved once and cached, so a
 * request costs a map lookup and a few additions.
 */
import type { Exchange } from '../../contract/exchange.js'
import type { Outcome } from '../../contract/plugin.js'
import type { Counter, Histogram, Metrics } from '../../contract/metrics.js'

// Bucket boundaries advised by the semantic conventions.
const HTTP_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]
const GEN_AI_SECONDS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]
const TTFT_SECONDS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]
const TOKENS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864]

/** `gen_ai.operation.name` of a route: the conventions' names where one fits, else the route id. */
export const OPERATIONS: Readonly<Record<string, string>> = {
  chat: 'chat',
  messages: 'chat',
  responses: 'chat',
  completions: 'text_completion',
  embeddings: 'embeddings',
}

const UPSTREAM_CODES = new Set(['upstream_error', 'upstream_failed', 'upstream_timeout'])

interface Observe {
  observe(value: number): void
}
interface Inc {
  inc(by?: number): void
}

/** The series one (route, status, model) combination writes, resolved once. */
interface Bundle {
  requests: Inc
  http?: Observe
  genAi?: { duration: Observe; ttft: Observe; input: Observe; output: Observe }
  upstreamErrors?: Inc
}

export class RequestMetrics {
  private readonly requests: Counter
  private readonly httpDuration: Histogram
  private readonly genAiDuration: Histogram
  private readonly ttft: Histogram
  private readonly tokens: Histogram
  private readonly upstreamErrors: Counter
  private readonly bundles = new Map<string, Bundle>()

  constructor(metrics: Metrics) {
    this.requests = metrics.counter(
      'sluice_requests_total',
      'Requests served, by pipeline, route, status and model (empty when no model was called).',
    )
    this.httpDuration = metrics.histogram(
      'http_server_request_duration_seconds',
      'Duration of HTTP requests, until the reply (or its stream) ended.',
      HTTP_SECONDS,
    )
    this.genAiDuration = metrics.histogram(
      'gen_ai_server_request_duration_seconds',
      'Generative AI request duration: requests that called a model, until the reply ended.',
      GEN_AI_SECONDS,
    )
    this.ttft = metrics.histogram(
      'gen_ai_server_time_to_first_token_seconds',
      'Time to the first token (or audio, or the whole reply) of requests that called a model.',
      TTFT_SECONDS,
    )
    this.tokens = metrics.histogram(
      'gen_ai_client_token_usage',
      'Tokens used per request that called a model, by gen_ai_token_type (input, output).',
      TOKENS,
    )
    this.upstreamErrors = metrics.counter(
      'sluice_upstream_errors_total',
      'Requests that failed because of the model server (its error status, unreachable, or too slow), by model and code.',
    )
  }

  end(ex: Exchange, outcome: Outcome, seconds: number): void {
    const usage = ex.usage
    const model = usage.model ?? ''
    const code = outcome.error?.code
    const upstream = typeof code === 'string' && UPSTREAM_CODES.has(code) ? code : ''
    const key = `${ex.route.id}\u0000${outcome.status}\u0000${model}\u0000${ex.transport}\u0000${upstream}`
    let bundle = this.bundles.get(key)
    if (!bundle) {
      bundle = this.bundle(ex, outcome, model, upstream)
      this.bundles.set(key, bundle)
    }
    bundle.requests.inc()
    bundle.http?.observe(seconds)
    bundle.upstreamErrors?.inc()
    if (bundle.genAi && usage.reached) {
      const used = usage.used()
      bundle.genAi.duration.observe(seconds)
      if (usage.firstTokenAt !== undefined)
        bundle.genAi.ttft.observe(Math.max(0, usage.firstTokenAt - ex.startedAt) / 1000)
      bundle.genAi.input.observe(used.inputTokens)
      bundle.genAi.output.observe(used.outputTokens)
    }
  }

  private bundle(ex: Exchange, outcome: Outcome, model: string, upstream: string): Bundle {
    const status = String(outcome.status)
    const bundle: Bundle = {
      requests: this.requests.series({ pipeline: ex.route.pipeline, route: ex.route.id, status, model }),
    }
    // In-process calls are counted as requests and as model calls, not as HTTP requests.
    if (ex.transport === 'http') {
      bundle.http = this.httpDuration.series({
        http_request_method: ex.method,
        http_route: ex.route.id,
        http_response_status_code: status,
      })
    }
    if (model !== '') {
      const base = { gen_ai_operation_name: OPERATIONS[ex.route.id] ?? ex.route.id, gen_ai_request_model: model }
      const failed =
        outcome.kind === 'done' ? base : { ...base, error_type: String(outcome.error?.code ?? outcome.kind) }
      bundle.genAi = {
        duration: this.genAiDuration.series(failed),
        ttft: this.ttft.series(base),
        input: this.tokens.series({ ...base, gen_ai_token_type: 'input' }),
        output: this.tokens.series({ ...base, gen_ai_token_type: 'output' }),
      }
    }
    if (upstream !== '') bundle.upstreamErrors = this.upstreamErrors.series({ model, code: upstream, status })
    return bundle
  }
}
