/** The model servers as plugins see them (re-exported by kernel.ts, as the catalog's interface is). */
import type { Dispatcher } from 'undici'
import type { Exchange } from './exchange.js'
import type { BackendConfig } from '../../schemas/models.schema.js'
import type { UpstreamCall, UpstreamResponse, UpstreamText } from './upstream-call.js'

/** The model servers: keep-alive pools, and the one call every adapter makes. */
export interface Backends {
  /** The pool for a backend, and its base URL (origin + path prefix, without a trailing slash). */
  get(name: string): {
    dispatcher: Dispatcher
    baseUrl: string
    origin: string
    pathPrefix: string
    config: BackendConfig
  }
  /**
   * Calls the model server of `call.model`: upstream headers, errors passed through with the
   * server's status and message, 502 when it cannot be reached, aborted with the request. Marks
   * `ex.usage` as having reached that model; the caller reports what it used.
   */
  call(ex: Exchange, call: UpstreamCall): Promise<UpstreamResponse>
  /**
   * The same call for an answer read whole (JSON text): the same headers, retries and errors,
   * without a body stream to read. Cheaper on the hot path; `call` for streams and bytes.
   */
  callText(ex: Exchange, call: UpstreamCall): Promise<UpstreamText>
}
