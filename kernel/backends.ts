/**
 * Keep-alive connection pools to the model servers, one undici Pool per backend, shared by
 * every route of a generation and closed with it.
 */
import { Pool } from 'undici'
import type { Backends, Catalog } from './kernel.js'
import { GatewayError } from './errors.js'

export class BackendPools implements Backends {
  private readonly pools = new Map<string, Pool>()

  constructor(private readonly catalog: Catalog) {}

  get(name: string) {
    const config = this.catalog.backend(name)
    if (!config) throw new GatewayError(502, 'upstream request failed', { code: 'upstream_failed', cause: new Error(`backend ${name} has no URL (embedded simulator off?)`) })
    let pool = this.pools.get(name)
    if (!pool) {
      const url = new URL(config.baseUrl)
      pool = new Pool(url.origin, {
        connections: config.connections ?? 64,
        pipelining: 1,
        keepAliveTimeout: 30_000,
        // The request's own deadline governs; these only bound a silent peer.
        headersTimeout: 0,
        bodyTimeout: 0,
      })
      this.pools.set(name, pool)
    }
    return { dispatcher: pool, baseUrl: config.baseUrl, config }
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.close().catch(() => undefined)))
    this.pools.clear()
  }
}
