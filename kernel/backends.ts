/**
 * Keep-alive connection pools to the model servers, one undici Pool per backend, shared by
 * every route of a generation and closed with it.
 */
import { Pool } from 'undici'
import type { Backends, Catalog } from './kernel.js'
import { GatewayError } from './errors.js'

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
