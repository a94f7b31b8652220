/**
 * The backends service: keep-alive connection pools to the model servers (one undici Pool per
 * replica, made on first use and closed with the generation), and the one call every adapter
 * makes to a model server. The call sets the upstream headers, passes a server's errors
 * through with its status and message, turns a failure to reach it into 502 (or the request's
 * own stop reason), aborts with the request, and marks `ex.usage` as having reached a model.
 * A backend with several replicas (replica-set.ts) picks one per attempt and retries on
 * another while nothing has reached the client (retry.ts); when every replica failed so, the
 * model's fallbacks answer in turn (fallbacks.ts). A backend's `timeout_ms` bounds each
 * attempt's wait for a replica to start answering (attempt-deadline.ts).
 */
import { isLargeText, utf8InTurns } from '../../../protocols/http/large-json-write.js'
import type { Dispatcher } from 'undici'
import type { Backends } from '../../contract/backends.js'
import type { Catalog } from '../../contract/catalog.js'
import type { Exchange } from '../../contract/exchange.js'
import type { BackendConfig } from '../../../schemas/models.schema.js'
import type { GroupConfig } from '../../../schemas/keys.schema.js'
import type { Metrics } from '../../contract/metrics.js'
import { GatewayError } from '../../contract/errors.js'
import { upstreamError } from '../../../protocols/openai/upstream-error.js'
import type { UpstreamCall, UpstreamResponse, UpstreamText } from '../../contract/upstream-call.js'
import { dispatchWhole } from './whole-reply.js'
import { upstreamTraceHeaders, type ModelCallSpan } from '../observe/trace-context.js'
import { ReplicaSet, type Tried } from './replica-set.js'
import type { Replica } from './replica.js'
import { firstChunk, retriable, transportFailure } from './retry.js'
import { registerReplicaGauges } from './replica-metrics.js'
import { fallBack } from './fallbacks.js'
import { AttemptDeadline } from './attempt-deadline.js'

export type { UpstreamCall, UpstreamResponse, UpstreamText }

type Handle = ReturnType<Backends['get']>

export class BackendPools implements Backends {
  // One replica set per backend, made on first use: requests only look it up.
  private readonly sets = new Map<string, ReplicaSet>()

  constructor(
    private readonly catalog: Catalog,
    /** The caller's group, whose `forward_headers` decides whether client headers pass on. */
    private readonly groupOf: (id: string) => GroupConfig | undefined = () => undefined,
    metrics?: Metrics,
  ) {
    if (metrics) registerReplicaGauges(metrics, () => this.sets.values())
  }

  /** The replicas of a backend (made on first use). */
  replicaSet(name: string): ReplicaSet {
    const known = this.sets.get(name)
    if (known) return known
    const config = this.catalog.backend(name)
    if (!config)
      throw new GatewayError(502, 'upstream request failed', {
        code: 'upstream_failed',
        cause: new Error(`backend ${name} has no URL (embedded simulator off?)`),
      })
    const set = new ReplicaSet(name, config)
    this.sets.set(name, set)
    return set
  }

  /** A serving replica's pool: what the readiness probe asks (one replica up is enough). */
  get(name: string): Handle {
    const set = this.replicaSet(name)
    const r = set.representative()
    return {
      dispatcher: r.pool,
      baseUrl: r.baseUrl,
      origin: r.origin,
      pathPrefix: r.pathPrefix,
      config: this.catalog.backend(name)!,
    }
  }

  call(ex: Exchange, call: UpstreamCall): Promise<UpstreamResponse> {
    // Not async: a model without fallbacks costs no more than before.
    if (!call.model.fallbacks?.length) return this.callModel(ex, call, false)
    return this.withFallbacks(ex, call, (c) => this.callModel(ex, c, true))
  }

  /** One call of `once`, then, when it failed before any byte reached the client, each fallback model in turn. */
  private async withFallbacks<T>(ex: Exchange, call: UpstreamCall, once: (c: UpstreamCall) => Promise<T>): Promise<T> {
    try {
      return await once(call)
    } catch (err) {
      return fallBack(ex, this.catalog, call, err, once)
    }
  }

  /** `chained`: a fallback may follow, so a stream is held until its first bytes (nothing relayed yet). */
  private async callModel(ex: Exchange, call: UpstreamCall, chained: boolean): Promise<UpstreamResponse> {
    const { set, headers, span } = this.begin(ex, call)
    const answer = this.attempt(ex, set, call, headers, 0, chained, span)
    return span ? span.answer(answer) : answer
  }

  /** The replica set and upstream headers of a call; from here on the request has reached a model (metered whatever happens next). */
  private begin(ex: Exchange, call: UpstreamCall) {
    const set = this.replicaSet(call.model.backend)
    const group = ex.principal ? this.groupOf(ex.principal.group) : undefined
    const headers = upstreamHeaders(ex, this.catalog.backend(call.model.backend)!, group?.forward_headers === true)
    if (typeof call.body === 'string' || Buffer.isBuffer(call.body)) headers['content-type'] = 'application/json'
    if (call.accept) headers.accept = call.accept
    // Last, so that a forwarded or configured traceparent never replaces the checked one.
    const span = upstreamTraceHeaders(ex, headers, call.model, call.path)
    ex.usage.model = call.model.id
    return { set, headers, span }
  }

  /** `call` for a reply read whole: the same headers, retries, fallbacks and errors, without a body stream (whole-reply.ts). */
  callText(ex: Exchange, call: UpstreamCall): Promise<UpstreamText> {
    if (!call.model.fallbacks?.length) return this.textFrom(ex, call)
    return this.withFallbacks(ex, call, (c) => this.textFrom(ex, c))
  }

  private textFrom(ex: Exchange, call: UpstreamCall): Promise<UpstreamText> {
    const { set, headers, span } = this.begin(ex, call)
    const answer = this.readText(ex, set, call, headers, span)
    return span ? span.answer(answer) : answer
  }

  private async readText(
    ex: Exchange,
    set: ReplicaSet,
    call: UpstreamCall,
    headers: Record<string, string>,
    span: ModelCallSpan | undefined,
  ): Promise<UpstreamText> {
    let tried: Tried = 0
    let lastError: GatewayError | DOMException | undefined
    const body = isLargeText(call.body) ? await utf8InTurns(call.body) : call.body
    for (;;) {
      const replica = nextReplica(set, call, tried, lastError)
      tried |= 1 << replica.index
      const deadline = set.timeoutMs === undefined ? undefined : new AttemptDeadline(ex.signal, set.timeoutMs)
      span?.sentTo(replica.label)
      let res: UpstreamText
      try {
        res = await dispatchWhole(replica.pool, {
          origin: replica.origin,
          path: replica.pathPrefix + call.path,
          method: 'POST',
          headers,
          body,
          signal: deadline?.signal ?? ex.signal,
        })
      } catch (err) {
        // A body that broke before its end is retried as one that never came (nothing was relayed).
        deadline?.clear()
        lastError = unreached(ex, set, replica, deadline?.error ?? err)
        continue
      }
      deadline?.clear()
      set.end(replica)
      if (res.status >= 400) {
        lastError = refusedBy(ex, set, replica, res.status, res.text)
        continue
      }
      set.succeeded(replica)
      return res
    }
  }

  /**
   * One attempt on a replica not yet tried. Another follows, on another replica, for what
   * cannot have reached the client: a connection refused or reset before the answer's headers,
   * a 502 or 503, a body that broke before its first byte (streams) or before its end (JSON,
   * which is read whole before anything is relayed). `chained`: a fallback model may follow.
   */
  private async attempt(
    ex: Exchange,
    set: ReplicaSet,
    call: UpstreamCall,
    headers: Record<string, string>,
    tried: Tried,
    chained: boolean,
    span?: ModelCallSpan,
  ): Promise<UpstreamResponse> {
    let lastError: GatewayError | DOMException | undefined
    // Nothing is relayed before a stream's first bytes: a replica that dies (or, with timeout_ms,
    // stays silent) before them is retried, on another replica or another model.
    const holdStream =
      call.accept === 'text/event-stream' && (set.replicas.length > 1 || chained || set.timeoutMs !== undefined)
    const body = isLargeText(call.body) ? await utf8InTurns(call.body) : call.body
    for (;;) {
      const replica = nextReplica(set, call, tried, lastError)
      tried |= 1 << replica.index
      const deadline = set.timeoutMs === undefined ? undefined : new AttemptDeadline(ex.signal, set.timeoutMs)
      span?.sentTo(replica.label)
      let res: Dispatcher.ResponseData
      try {
        res = await replica.pool.request({
          origin: replica.origin,
          path: replica.pathPrefix + call.path,
          method: 'POST',
          headers,
          body,
          signal: deadline?.signal ?? ex.signal,
        })
      } catch (err) {
        deadline?.clear()
        lastError = unreached(ex, set, replica, deadline?.error ?? err)
        continue
      }
      if (res.statusCode >= 400) {
        const text = await res.body.text().catch(() => '')
        deadline?.clear()
        set.end(replica)
        lastError = refusedBy(ex, set, replica, res.statusCode, text)
        continue
      }
      res.body.once('close', () => set.end(replica))
      if (holdStream) {
        const ok = await firstChunk(res.body).then(
          () => true,
          (err: unknown) => {
            lastError = deadline?.error ?? transportFailure(ex.signal, err, false)
            return false
          },
        )
        deadline?.clear()
        if (!ok) {
          if (ex.signal.aborted) throw lastError!
          res.body.destroy()
          set.failed(replica)
          continue
        }
      }
      deadline?.clear()
      set.succeeded(replica)
      return this.response(ex, set, call, headers, tried, replica, res, chained)
    }
  }

  private response(
    ex: Exchange,
    set: ReplicaSet,
    call: UpstreamCall,
    headers: Record<string, string>,
    tried: Tried,
    replica: Replica,
    res: Dispatcher.ResponseData,
    chained: boolean,
  ): UpstreamResponse {
    const body = res.body
    const failure = (err: unknown, streaming: boolean) => {
      if (!ex.signal.aborted) set.failed(replica)
      return transportFailure(ex.signal, err, streaming)
    }
    const ct = res.headers['content-type']
    const pools = this
    return {
      status: res.statusCode,
      contentType: Array.isArray(ct) ? ct[0] : ct,
      body,
      failure,
      async *chunks() {
        try {
          for await (const chunk of body) yield chunk as Buffer
        } catch (err) {
          throw failure(err, true)
        }
      },
      async text() {
        try {
          return await body.text()
        } catch (err) {
          const error = failure(err, false)
          // Read whole before anything is relayed: another replica may still answer.
          if (ex.signal.aborted || !set.untried(tried)) throw error
          return (await pools.attempt(ex, set, call, headers, tried, chained)).text()
        }
      },
    }
  }

  /** Closes the pools once their requests end; `cut`: ends the requests still running, now. */
  async close(cut = false): Promise<void> {
    await Promise.all([...this.sets.values()].map((s) => s.close(cut)))
    this.sets.clear()
  }
}

/** The next replica not yet tried, counted as busy; the last error when none is left. */
function nextReplica(
  set: ReplicaSet,
  call: UpstreamCall,
  tried: Tried,
  lastError: GatewayError | DOMException | undefined,
): Replica {
  const replica = set.pick(call.body, tried)
  if (!replica) throw lastError ?? new GatewayError(502, 'upstream request failed', { code: 'upstream_failed' })
  set.begin(replica)
  return replica
}

/** A replica that gave no answer: marked failed, unless the request itself stopped (then that is thrown). */
function unreached(ex: Exchange, set: ReplicaSet, replica: Replica, cause: unknown): GatewayError | DOMException {
  set.end(replica)
  const error = transportFailure(ex.signal, cause, false)
  if (ex.signal.aborted) throw error
  set.failed(replica)
  return error
}

/** A replica's error status: the server's error, to retry on another replica (502, 503) or to throw. */
function refusedBy(ex: Exchange, set: ReplicaSet, replica: Replica, status: number, text: string): GatewayError {
  if (status >= 500) set.failed(replica)
  else set.succeeded(replica)
  const error = upstreamError(status, text)
  if (retriable(status) && !ex.signal.aborted) return error
  throw error
}

/**
 * The headers of a call to a model server: the backend's own headers, its bearer key, and, for a
 * group allowed to send them, the request headers it is configured to receive as the client
 * sent them (the W3C trace context is set after these: upstreamTraceHeaders).
 */
function upstreamHeaders(ex: Exchange, backend: BackendConfig, forward: boolean): Record<string, string> {
  const headers: Record<string, string> = { ...backend.headers }
  if (backend.api_key) headers.authorization = `Bearer ${backend.api_key}`
  if (forward) {
    for (const name of backend.forward_headers ?? []) {
      const value = ex.header(name)
      if (value !== undefined) headers[name] = value
    }
  }
  return headers
}
