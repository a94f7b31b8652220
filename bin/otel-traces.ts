/**
 * OpenTelemetry traces, exported over OTLP/HTTP with the official SDK: the exporter of the
 * kernel's trace seam (kernel/services/observe/trace-context.ts). Loaded by a dynamic import,
 * only when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set
 * (open-services.ts): without them, nothing of the SDK is in the process.
 *
 * Each request is one span (SERVER for a client's request, INTERNAL for a `kernel.call`, under
 * its calling request's span), with a child for its wait in the fair queue and a CLIENT child
 * per model call. The spans carry the ids the gateway makes and sends upstream: the request's
 * span is the one the access log names, and each model call's span is the parent-id of the
 * `traceparent` that call sent, so a model server's own spans hang under it. The SDK is fed
 * those ids through its IdGenerator, set just before each (synchronous) startSpan.
 *
 * Attributes follow the semantic conventions (HTTP server, GenAI client): identifiers, names,
 * statuses and token counts. Never prompt or reply text, never an error's message, never a key
 * (only its id).
 *
 * The standard variables apply, read by the SDK from the process environment: the endpoint,
 * OTEL_EXPORTER_OTLP_(TRACES_)HEADERS, _TIMEOUT, _COMPRESSION and certificates (the exporter),
 * OTEL_TRACES_SAMPLER and _ARG, OTEL_BSP_* (the batch processor), OTEL_SERVICE_NAME and
 * OTEL_RESOURCE_ATTRIBUTES (the resource; the service is `sluice` by default). Read here:
 * OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL (`http/protobuf`, the default, or `http/json`),
 * OTEL_TRACES_EXPORTER (`otlp` or `none`), OTEL_SDK_DISABLED, OTEL_LOG_LEVEL.
 */
import fs from 'node:fs'
import path from 'node:path'
import {
  DiagLogLevel,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  diag,
  trace as traceApi,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api'
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type IdGenerator,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base'
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources'
import type { Exchange } from '../kernel/contract/exchange.js'
import { redactUrl, type Logger } from '../kernel/contract/log.js'
import { repoRoot } from '../kernel/contract/paths.js'
import type { Outcome } from '../kernel/contract/plugin.js'
import { GatewayError } from '../kernel/contract/errors.js'
import {
  newTrace,
  type ModelCallSpan,
  type TraceContext,
  type TraceExporter,
} from '../kernel/services/observe/trace-context.js'
import { randomHex } from '../protocols/http/trace-context.js'
import type { ModelConfig } from '../schemas/models.schema.js'
import { OPERATIONS } from '../kernel/services/observe/request-metrics.js'
import { errorCode, statusName } from '../protocols/http/status-names.js'

const PROTOCOLS = ['http/protobuf', 'http/json'] as const

/**
 * The settings the SDK does not check itself, checked at start: a wrong one stops the start with
 * the variable and the reason (the SDK would only log it and export elsewhere, or nowhere).
 */
function checkedSettings(env: NodeJS.ProcessEnv): { protocol: (typeof PROTOCOLS)[number] } {
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT']) {
    const url = env[name]
    if (!url) continue
    let parsed: URL | undefined
    try {
      parsed = new URL(url)
    } catch {}
    if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:')
      throw new Error(`${name}=${JSON.stringify(url)} is not an http(s) URL`)
  }
  const exporters = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((e) => e.trim())
  const other = exporters.find((e) => e !== 'otlp' && e !== '')
  if (other !== undefined)
    throw new Error(`OTEL_TRACES_EXPORTER=${other} is not supported: Sluice exports traces over OTLP (otlp or none)`)
  const asked = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf').trim()
  const protocol = PROTOCOLS.find((p) => p === asked)
  if (!protocol)
    throw new Error(
      `OTEL_EXPORTER_OTLP_PROTOCOL=${asked} is not supported: Sluice exports over OTLP/HTTP (http/protobuf or http/json)`,
    )
  return { protocol }
}

/** The SDK's own messages (an export that failed) go to the gateway's log, from OTEL_LOG_LEVEL (default warn). */
function diagnostics(env: NodeJS.ProcessEnv, log: Logger): void {
  const levels: Record<string, DiagLogLevel> = {
    none: DiagLogLevel.NONE,
    error: DiagLogLevel.ERROR,
    warn: DiagLogLevel.WARN,
    info: DiagLogLevel.INFO,
    debug: DiagLogLevel.DEBUG,
    verbose: DiagLogLevel.VERBOSE,
    all: DiagLogLevel.ALL,
  }
  const otel = log.child({ component: 'opentelemetry' })
  const say =
    (write: (msg: string) => void) =>
    (message: string, ...args: unknown[]) =>
      write([message, ...args.map((a) => (a instanceof Error ? a.message : String(a)))].join(' '))
  diag.setLogger(
    {
      error: say((m) => otel.error(m)),
      warn: say((m) => otel.warn(m)),
      info: say((m) => otel.info(m)),
      debug: say((m) => otel.debug(m)),
      verbose: say((m) => otel.debug(m)),
    },
    { logLevel: levels[(env.OTEL_LOG_LEVEL ?? '').trim().toLowerCase()] ?? DiagLogLevel.WARN },
  )
}

/** The ids the gateway made, handed to the SDK for the span about to start. */
class GivenIds implements IdGenerator {
  traceId = ''
  spanId = ''
  generateTraceId(): string {
    return this.traceId
  }
  generateSpanId(): string {
    return this.spanId
  }
}

/** `gen_ai.operation.name` of a model call, from the path it was sent to. */
function operationOf(path: string): string {
  if (path.endsWith('/chat/completions')) return 'chat'
  if (path.endsWith('/completions')) return 'text_completion'
  if (path.endsWith('/embeddings')) return 'embeddings'
  return path.replace(/^\/(v\d+\/)?/, '')
}

/** `error.type` of a failed model call: the error's code (or its status's name), or what was thrown. */
function callErrorType(call: ModelCall): string | undefined {
  const err = call.error
  if (err instanceof GatewayError) return err.code === undefined ? statusName(err.status) : String(err.code)
  if (err !== undefined) return err instanceof DOMException && err.name === 'AbortError' ? 'client_closed' : 'error'
  return call.status !== undefined && call.status >= 400 ? String(call.status) : undefined
}

const UPSTREAM_CODES = new Set(['upstream_error', 'upstream_failed', 'upstream_timeout'])

/** What a model call's span will say, noted as the call goes (backends service) and written when its request ends. */
class ModelCall implements ModelCallSpan {
  readonly spanId = randomHex(8)
  readonly startedAt = Date.now()
  endedAt: number | undefined
  server: string | undefined
  status: number | undefined
  error: unknown

  constructor(
    readonly model: ModelConfig,
    readonly path: string,
  ) {}

  sentTo(server: string): void {
    this.server = server
  }

  answer<T extends { status: number; body?: NodeJS.EventEmitter }>(answer: Promise<T>): Promise<T> {
    const ended = () => void (this.endedAt = Date.now())
    return answer.then(
      (res) => {
        this.status = res.status
        if (res.body) res.body.once('close', ended)
        else ended()
        return res
      },
      (err: unknown) => {
        this.error = err
        ended()
        throw err
      },
    )
  }
}

interface Open {
  readonly trace: TraceContext
  readonly span: Span
  readonly calls: ModelCall[]
}

export class OtelTraces implements TraceExporter {
  private readonly ids = new GivenIds()
  private readonly provider: BasicTracerProvider
  private readonly tracer: ReturnType<BasicTracerProvider['getTracer']>
  /** The requests begun and not yet ended, by request id: an internal call finds its parent here. */
  private readonly open = new Map<string, Open>()

  constructor(exporter: SpanExporter, version: string) {
    const resource = defaultResource()
      .merge(resourceFromAttributes({ 'service.name': 'sluice', 'service.version': version }))
      .merge(detectResources({ detectors: [envDetector] }))
    this.provider = new BasicTracerProvider({
      resource,
      idGenerator: this.ids,
      spanProcessors: [new BatchSpanProcessor(exporter)],
    })
    this.tracer = this.provider.getTracer('sluice', version)
  }

  begin(ex: Exchange): TraceContext {
    const caller = ex.parentId === undefined ? undefined : this.open.get(ex.parentId)
    const made = newTrace(ex, caller?.trace)
    let parent: Context = ROOT_CONTEXT
    if (caller) parent = traceApi.setSpan(ROOT_CONTEXT, caller.span)
    else if (made.parentId !== undefined)
      parent = traceApi.setSpanContext(ROOT_CONTEXT, {
        traceId: made.traceId,
        spanId: made.parentId,
        traceFlags: Number.parseInt(made.flags, 16) & TraceFlags.SAMPLED,
        isRemote: true,
      })
    const internal = ex.transport === 'internal'
    const name = internal
      ? `call ${ex.route.id}`
      : ex.transport === 'ws'
        ? `ws ${ex.route.id}`
        : `${ex.method} ${ex.route.id}`
    const kind = internal ? SpanKind.INTERNAL : SpanKind.SERVER
    const span = this.start(made.traceId, made.spanId, name, kind, ex.startedAt, parent)
    // The sampler's decision travels on: in the traceparent of the model calls and of internal calls.
    const sampled = (span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0
    const calls: ModelCall[] = []
    const modelCall = (model: ModelConfig, path: string) => {
      const call = new ModelCall(model, path)
      calls.push(call)
      return call
    }
    const trace: TraceContext = { ...made, flags: sampled ? '01' : '00', modelCall }
    this.open.set(ex.id, { trace, span, calls })
    return trace
  }

  end(ex: Exchange, outcome: Outcome, endedAt: number, client: string | undefined): void {
    const open = this.open.get(ex.id)
    if (!open) return
    this.open.delete(ex.id)
    const { trace, span, calls } = open
    if (!span.isRecording()) return
    const usage = ex.usage
    const code = errorCode(outcome)
    // A route the conventions name, else what its own model call did (an internal chat route), else the route.
    const operation = OPERATIONS[ex.route.id] ?? (calls[0] ? operationOf(calls[0].path) : ex.route.id)
    const told = usage.answered ? usage.told() : undefined
    const overHttp = ex.transport === 'http'
    span.setAttributes({
      'http.request.method': overHttp ? ex.method : undefined,
      'http.route': overHttp ? ex.route.id : undefined,
      'url.path': overHttp ? ex.path : undefined,
      'http.response.status_code': overHttp ? outcome.status : undefined,
      'client.address': client,
      'error.type': code,
      'sluice.request_id': ex.id,
      'sluice.parent_request_id': ex.parentId,
      'sluice.pipeline': ex.route.pipeline,
      'sluice.route': ex.route.id,
      'sluice.transport': ex.transport,
      'sluice.status': outcome.status,
      'sluice.outcome': outcome.kind,
      'sluice.key_id': ex.principal?.keyId,
      'sluice.group': ex.principal?.group,
      'gen_ai.operation.name': usage.answered ? operation : undefined,
      'gen_ai.request.model': usage.toldModel,
      'gen_ai.response.model': usage.upstreamModel,
      'gen_ai.usage.input_tokens': told?.inputTokens,
      'gen_ai.usage.output_tokens': told?.outputTokens,
      'sluice.usage.source': told?.source,
    })
    // A server span is in error for a 5xx only (a 4xx is the client's); error.type names any failure.
    if (outcome.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
    const parent = traceApi.setSpan(ROOT_CONTEXT, span)
    const queue = ex.state.queue
    if (queue) {
      const wait = this.start(trace.traceId, randomHex(8), 'queue wait', SpanKind.INTERNAL, queue.since, parent)
      wait.setAttributes({ 'sluice.queue.pool': queue.pool, 'gen_ai.request.model': usage.model })
      wait.end(queue.since + queue.waitedMs)
    }
    // The call whose answer the request used; a stream the model server cut after its start failed on it.
    const answered = lastAnswered(calls)
    const cut = code !== undefined && UPSTREAM_CODES.has(code) ? code : undefined
    for (const call of calls)
      this.callSpan(trace.traceId, call, parent, call === answered ? ex : undefined, cut, endedAt)
    span.end(endedAt)
  }

  /** A model call's CLIENT span; `answered`: the request whose usage is this call's (it answered). */
  private callSpan(
    traceId: string,
    call: ModelCall,
    parent: Context,
    answered: Exchange | undefined,
    cut: string | undefined,
    endedAt: number,
  ): void {
    const operation = operationOf(call.path)
    const model = call.model.served_name ?? call.model.id
    const span = this.start(traceId, call.spanId, `${operation} ${model}`, SpanKind.CLIENT, call.startedAt, parent)
    const [address, port] = hostAndPort(call.server)
    const used = answered?.usage.used()
    const counted = used !== undefined && used.source !== 'none'
    const errorType = callErrorType(call) ?? (answered ? cut : undefined)
    const attributes: Attributes = {
      'gen_ai.operation.name': operation,
      'gen_ai.provider.name': call.model.backend,
      'gen_ai.request.model': model,
      'gen_ai.response.model': answered?.usage.upstreamModel,
      'gen_ai.usage.input_tokens': counted ? used.inputTokens : undefined,
      'gen_ai.usage.output_tokens': counted ? used.outputTokens : undefined,
      'server.address': address,
      'server.port': port,
      'http.response.status_code': call.status ?? (call.error instanceof GatewayError ? call.error.status : undefined),
      'error.type': errorType,
      'sluice.model': call.model.id,
    }
    span.setAttributes(attributes)
    if (errorType !== undefined) span.setStatus({ code: SpanStatusCode.ERROR })
    span.end(call.endedAt ?? endedAt)
  }

  private start(traceId: string, spanId: string, name: string, kind: SpanKind, at: number, parent: Context): Span {
    this.ids.traceId = traceId
    this.ids.spanId = spanId
    return this.tracer.startSpan(name, { kind, startTime: at }, parent)
  }

  /** Sends the spans still buffered and stops (the gateway's close). */
  async close(): Promise<void> {
    await this.provider.forceFlush().catch(() => undefined)
    await this.provider.shutdown().catch(() => undefined)
    diag.disable()
  }
}

/** The call whose answer the request used: the last one that was answered. */
function lastAnswered(calls: readonly ModelCall[]): ModelCall | undefined {
  for (let i = calls.length - 1; i >= 0; i--) if (calls[i]!.error === undefined) return calls[i]
  return undefined
}

function hostAndPort(server: string | undefined): [string | undefined, number | undefined] {
  if (server === undefined) return [undefined, undefined]
  try {
    const url = new URL(`http://${server}`)
    return [url.hostname.replace(/^\[|\]$/g, ''), url.port ? Number(url.port) : 80]
  } catch {
    return [server, undefined]
  }
}

/** The OTLP/HTTP exporter of the asked protocol, its SDK loaded now (this module is itself loaded only when traces are wanted). */
export async function openOtelTraces(env: NodeJS.ProcessEnv, log: Logger): Promise<OtelTraces> {
  const { protocol } = checkedSettings(env)
  const { version } = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }
  diagnostics(env, log)
  const { OTLPTraceExporter } =
    protocol === 'http/json'
      ? await import('@opentelemetry/exporter-trace-otlp-http')
      : await import('@opentelemetry/exporter-trace-otlp-proto')
  const traces = new OtelTraces(new OTLPTraceExporter(), version)
  log.info('traces exported over OTLP/HTTP', {
    endpoint: redactUrl((env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT)!),
    protocol,
  })
  return traces
}
