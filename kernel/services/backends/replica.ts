/**
 * One replica of a model server: its keep-alive pool and what the gateway knows of it
 * (requests outstanding, consecutive failures, ejection, the last health check).
 */
import type { Dispatcher } from 'undici'
import { upstreamPool } from '../../../protocols/http/upstream-pool.js'

export class Replica {
  readonly origin: string
  readonly pathPrefix: string
  /** The replica in metrics and logs: host and port only (a URL may carry credentials). */
  readonly label: string
  /** Its keep-alive pool (protocols/http/upstream-pool.ts). */
  readonly pool: Dispatcher
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
    http2 = false,
  ) {
    const url = new URL(baseUrl)
    this.origin = url.origin
    this.pathPrefix = url.pathname.replace(/\/$/, '')
    this.label = url.host
    this.pool = upstreamPool(url, connections, http2)
  }

  /** Takes requests: not ejected, and its last health check passed. */
  get serving(): boolean {
    return !this.ejected && this.healthy
  }
}
