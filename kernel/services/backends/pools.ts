/**
 * Keep-alive connection pools to the model servers, one undici Pool per backend, shared by
 * every route of a generation and closed with it.
 */
import { Pool } from 'undici'
import type { Backends, Catalog } from '../../kernel.js'
import type { Exchange } from '../../exchange.js'
import type { BackendConfig } from '../../../schemas/models.schema.js'
import { GatewayError } from '../../errors.js'

type Handle = ReturnType<Backends['get']>

export class BackendPools implements Backends {
  // One handle per backend, made on first use: requests only look it up.
  private readonly handles = new Map<string, Handle>()

  constructor(private readonly catalog: Catalog) {}

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

  async close(): Promise<void> {
    await Promise.all([...this.handles.values()].map((h) => (h.dispatcher as Pool).close().catch(() => undefined)))
    this.handles.clear()
  }
}

/**
 * The headers of a call to a model server: the backend's own headers, its bearer key, and
 * the request headers it is configured to receive as the client sent them.
 */
export function upstreamHeaders(ex: Exchange, backend: BackendConfig): Record<string, string> {
  const headers: Record<string, string> = { ...backend.headers }
  if (backend.api_key) headers.authorization = `Bearer ${backend.api_key}`
  for (const name of backend.forward_headers ?? []) {
    const value = ex.header(name)
    if (value !== undefined) headers[name] = value
  }
  return headers
}
