/** Builds the Exchange of one request, with its abort signal and its total-time deadline. */
import crypto from 'node:crypto'
import type { Exchange, ExchangeState, IncomingBody, Principal, RouteInfo, Transport } from '../contract/exchange.js'
import type { Logger } from '../contract/log.js'
import type { Reply } from '../contract/reply.js'
import { GatewayError } from '../contract/errors.js'
import { Usage } from '../contract/usage.js'
import type { DemandOf } from '../contract/plugin.js'

export interface ExchangeInit {
  id?: string
  route: RouteInfo
  transport: Transport
  parentId?: string
  method: string
  path: string
  params?: Record<string, string>
  query?: URLSearchParams
  headers?: Record<string, string | string[] | undefined>
  body?: unknown
  incoming?: IncomingBody
  principal?: Principal
  headerPrefix: string
  /** Total time limit of the request, in ms. */
  timeoutMs: number
  /** Aborts this exchange too (the caller of kernel.call, the client's socket). */
  parentSignal?: AbortSignal
  log: Logger
  now?: number
  /** The route's estimate of what a request may cost (from its model-reaching step). */
  demand?: DemandOf
}

/**
 * Response headers that refuse changes once the transport has sent them (when a stream starts,
 * or a whole reply is written): a header set in `chunk` or `finish` would otherwise be dropped
 * without a word over HTTP. The harness seals at the same moment, so a plugin test sees it too.
 */
class ResponseHeaders extends Map<string, string> {
  private sealed = false

  seal(): void {
    this.sealed = true
  }

  override set(name: string, value: string): this {
    if (this.sealed)
      throw new Error(
        `response header '${name}' set after the reply's headers were sent (set it in request, before the reply leaves)`,
      )
    return super.set(name, value)
  }

  override delete(name: string): boolean {
    if (this.sealed) throw new Error(`response header '${name}' deleted after the reply's headers were sent`)
    return super.delete(name)
  }
}

class RequestExchange implements Exchange {
  readonly id: string
  readonly route: RouteInfo
  readonly transport: Transport
  readonly parentId?: string
  readonly method: string
  readonly path: string
  readonly params: Readonly<Record<string, string>>
  readonly query: URLSearchParams
  body: unknown
  readonly incoming?: IncomingBody
  principal?: Principal
  readonly state: ExchangeState = {}
  readonly usage: Usage
  reply?: Reply
  readonly headers = new ResponseHeaders()
  readonly headerPrefix: string
  readonly signal: AbortSignal
  readonly startedAt: number
  readonly deadline: number
  private readonly baseLog: Logger
  private childLog: Logger | undefined
  private readonly requestHeaders: Record<string, string | string[] | undefined>
  readonly controller: AbortController
  private timer: NodeJS.Timeout | undefined

  constructor(init: ExchangeInit) {
    this.id = init.id ?? crypto.randomUUID()
    this.route = init.route
    this.transport = init.transport
    this.parentId = init.parentId
    this.method = init.method
    this.path = init.path
    this.params = init.params ?? {}
    this.query = init.query ?? new URLSearchParams()
    this.requestHeaders = init.headers ?? {}
    this.body = init.body
    this.incoming = init.incoming
    this.principal = init.principal
    const demand = init.demand
    this.usage = new Usage(demand ? () => demand(this) : undefined)
    this.headerPrefix = init.headerPrefix
    this.startedAt = init.now ?? Date.now()
    this.deadline = this.startedAt + init.timeoutMs
    this.baseLog = init.log
    this.controller = new AbortController()
    this.signal = init.parentSignal
      ? AbortSignal.any([this.controller.signal, init.parentSignal])
      : this.controller.signal
    this.timer = setTimeout(
      () => this.controller.abort(new GatewayError(504, 'upstream request timed out', { code: 'upstream_timeout' })),
      init.timeoutMs,
    )
    this.timer.unref()
  }

  /** Made on first use: most requests never log. */
  get log(): Logger {
    this.childLog ??= this.baseLog.child({ req: this.id, route: this.route.id })
    return this.childLog
  }

  header(name: string): string | undefined {
    const v = this.requestHeaders[name]
    return Array.isArray(v) ? v.join(', ') : v
  }

  /** The client went away. */
  abortByClient(): void {
    if (!this.controller.signal.aborted)
      this.controller.abort(new DOMException('client closed the request', 'AbortError'))
  }

  /** The reply's headers are on their way: later changes throw. */
  sealHeaders(): void {
    this.headers.seal()
  }

  /** The request is over: stop its deadline timer. */
  settle(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
  }
}

export type KernelExchange = Exchange & { abortByClient(): void; settle(): void; sealHeaders(): void }

export function createExchange(init: ExchangeInit): KernelExchange {
  return new RequestExchange(init)
}
