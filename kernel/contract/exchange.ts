/**
 * The Exchange: what a plugin sees of one request, whatever the transport (an HTTP request,
 * a WebSocket message or an in-process `kernel.call`). Plugins never see Koa's ctx.
 */
import type { Logger } from './log.js'
import type { Reply } from './reply.js'
import type { Usage } from './usage.js'

/**
 * Typed slots that plugins fill. Each plugin declares its own slot next to itself:
 *
 *   declare module 'sluice/contract' { interface ExchangeState { queue?: { waitedMs: number } } }
 *
 * A plugin writes only its own slot and reads another's only if it lists it in `requires`.
 */
export interface ExchangeState {}

/**
 * Facts the kernel keeps on the Exchange itself, not in `state`, that a step may list in
 * `provides` and `requires`: `principal` (`ex.principal`, filled by `auth` or by the caller of
 * `kernel.call`).
 */
export type KernelFact = 'principal'

/**
 * A name in a plugin's `requires` or `provides`: a slot of ExchangeState (as merged by every
 * plugin's declaration) or a kernel fact. A typo is a compile error.
 */
export type Slot = Extract<keyof ExchangeState, string> | KernelFact

/** Who is calling: set by the `auth` step (or passed to `kernel.call`). */
export interface Principal {
  /** Key id: the only thing about a key that may reach logs and records. */
  readonly keyId: string
  readonly group: string
  /** Keys marked legacy go through the older gateway, which lacks some endpoints. */
  readonly legacy: boolean
}

export type Transport = 'http' | 'ws' | 'internal'

export interface RouteInfo {
  readonly id: string
  readonly pipeline: string
  /** Source file of the pipeline, for messages. */
  readonly file: string
}

/** The request body of a route declared `body: raw`, read by the plugin that needs it. */
export interface IncomingBody {
  readonly contentType: string | undefined
  /** The declared Content-Length, when there is one. */
  readonly contentLength: number | undefined
  /**
   * Reads the whole body. Past `limit` bytes (default: the deployment's body limit) it throws
   * GatewayError 413 "request body too large" without buffering the excess.
   */
  read(limit?: number): Promise<Buffer>
  /** The body as chunks, read once, for plugins that parse as they go (multipart uploads). */
  stream(): AsyncIterable<Buffer>
}

export interface Exchange {
  /** Request id, sent back as `<prefix>request-id`. */
  readonly id: string
  readonly route: RouteInfo
  readonly transport: Transport
  /** Id of the request an in-process call was made for (`kernel.call`'s `parentId`); undefined on client requests. */
  readonly parentId?: string
  readonly method: string
  /** The path as received (without the query string). */
  readonly path: string
  /** Path parameters of the route pattern (`/models/:id` → `{ id }`). */
  readonly params: Readonly<Record<string, string>>
  readonly query: URLSearchParams
  /** Request header, by lower-case name. */
  header(name: string): string | undefined
  /** The request body, validated against the route's `body` schema when it has one. */
  body: unknown
  /** The unread body, on routes declared `body: raw` (over HTTP); else undefined. */
  readonly incoming?: IncomingBody
  principal?: Principal
  /** Typed slots of the plugins (declaration merging). */
  readonly state: ExchangeState
  /** What the request asks of a model and what it used: filled by whatever called a model server. */
  readonly usage: Usage
  /** The reply: set by the step that answers. */
  reply?: Reply
  /** Response headers to add, by lower-case name. */
  readonly headers: Map<string, string>
  /** The deployment's response-header prefix (default `x-gateway-`). */
  readonly headerPrefix: string
  /**
   * Aborted when the client goes or the request's total time limit passes. `signal.reason` is
   * a GatewayError (504) for the time limit, and an `AbortError` for a client that went away.
   */
  readonly signal: AbortSignal
  /** Epoch milliseconds at which the request started. */
  readonly startedAt: number
  /** Epoch milliseconds at which the total time limit ends. */
  readonly deadline: number
  readonly log: Logger
}
