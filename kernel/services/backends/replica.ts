/**
 * One replica of a model server: its keep-alive pool and what the gateway knows of it
 * (requests outstanding, consecutive failures, ejection, the last health check).
 */
import { Pool } from 'undici'

export class Replica {
  readonly origin: string
  readonly pathPrefix: string
  /** The replica in metrics and logs: host and port only (a URL may carry credentials). */
  readonly label: string
  readonly pool: Pool
  /** Requests sent and not yet ended (a stream counts until its body closes). */
  outstanding = 0
  /** Requests sent since the configuration was loaded, retries included. */
  requests = 0
  consecutiveFailures = 0
  timesEjected = 0
  /** Ejected by failures: out until `ejectedUntil` has passed and a health check passes. */
  ejected = false
  ejectedUntil = 0
  /** The last active health check passed (true until one fails). */
  healthy = true

  constructor(
    readonly index: number,
    readonly baseUrl: string,
    connections: number,
  ) {
    const url = new URL(baseUrl)
    this.origin = url.origin
    this.pathPrefix = url.pathname.replace(/\/$/, '')
    this.label = url.host
    this.pool = new Pool(url.origin, {
      connections,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      // The request's own deadline governs; these only bound a silent peer.
      headersTimeout: 0,
      bodyTimeout: 0,
    })
  }

  /** Takes requests: not ejected, and its last health check passed. */
  get serving(): boolean {
    return !this.ejected && this.healthy
  }
}
