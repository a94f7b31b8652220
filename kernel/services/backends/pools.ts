/**
 * The backends service: keep-alive connection pools to the model servers (one undici Pool per
 * backend, made on first use and closed with the generation), and the one call every adapter
 * makes to a model server. The call sets the upstream headers, passes a server's errors
 * through with its status and message, turns a failure to reach it into 502 (or the request's
 * own stop reason), aborts with the request, and marks `ex.usage` as having reached a model.
 */
import { Pool, type Dispatcher } from 'undici'
import type { Backends, Catalog } from '../../kernel.js'
import type { Exchange } from '../../exchange.js'
import type { BackendConfig } from '../../../schemas/models.schema.js'
import type { GroupConfig } from '../../../schemas/keys.schema.js'
import { GatewayError } from '../../errors.js'
import { transportFailure, upstreamError } from './upstream-error.js'
import type { UpstreamCall, UpstreamResponse } from './call.js'
import { upstreamTraceHeaders } from '../observe/trace-context.js'

export type { UpstreamCall, UpstreamResponse }

type Handle = ReturnType<Backends['get']>

export class BackendPools implements Backends {
  // One handle per backend, made on first use: requests only look it up.
  private readonly handles = new Map<string, Handle>()

  constructor(
    private readonly catalog: Catalog,
    /** The caller's group, whose `forward_headers` decides whether client headers pass on. */
    private readonly groupOf: (id: string) => GroupConfig | undefined = () => undefined,
  ) {}

  get(name: string): Handle {
    const known = this.handles.get(name)
    if (known) return known
    const config = this.catalog.backend(name)
    if (!config) throw new GatewayError(502, 'upstream request failed', { code: 'upstream_failed', cause: new Error(`backend ${name} has no URL (embedded simulator off?)`) })
    const url = new URL(config.baseUrl)
    const pool = new Pool(url.origin, {
      connections: config.connections ?? 64,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      // The request's own deadline governs; these only bound a silent peer.
      headersTimeout: 0,
      bodyTimeout: 0,
    })
    const handle: Handle = { dispatcher: pool, baseUrl: config.baseUrl, origin: url.origin, pathPrefix: url.pathname.replace(/\/$/, ''), config }
    this.handles.set(name, handle)
    return handle
  }

  async call(ex: Exchange, call: UpstreamCall): Promise<UpstreamResponse> {
    const backend = this.get(call.model.backend)
    const group = ex.principal ? this.groupOf(ex.principal.group) : undefined
    const headers = upstreamHeaders(ex, backend.config, group?.forward_headers === true)
    if (typeof call.body === 'string') headers['content-type'] = 'application/json'
    if (call.accept) headers.accept = call.accept
    // From here on the request has reached a model: it is metered whatever happens next.
    ex.usage.model = call.model.id
    let res: Dispatcher.ResponseData
    try {
      res = await backend.dispatcher.request({ origin: backend.origin, path: backend.pathPrefix + call.path, method: 'POST', headers, body: call.body, signal: ex.signal })
    } catch (err) {
      throw transportFailure(ex.signal, err, false)
    }
    if (res.statusCode >= 400) {
      const text = await res.body.text().catch(() => '')
      throw upstreamError(res.statusCode, text)
    }
    const body = res.body
    const failure = (err: unknown, streaming: boolean) => transportFailure(ex.signal, err, streaming)
    const ct = res.headers['content-type']
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
          throw failure(err, false)
        }
      },
    }
  }

  /** Closes the pools once their requests end; `cut`: ends the requests still running, now. */
  async close(cut = false): Promise<void> {
    await Promise.all([...this.handles.values()].map((h) => (cut ? (h.dispatcher as Pool).destroy() : (h.dispatcher as Pool).close()).catch(() => undefined)))
    this.handles.clear()
  }
}

/**
 * The headers of a call to a model server: the backend's own headers, its bearer key, for a
 * group allowed to send them, the request headers it is configured to receive as the client
 * sent them, and the W3C trace context (the client's trace continued, or a fresh one).
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
  // Last, so that a forwarded or configured traceparent never replaces the checked one.
  upstreamTraceHeaders(ex, headers)
  return headers
}
