/**
 * What a transport gives the one request lifecycle (run/lifecycle.ts): the request's body in, and
 * a writer for each kind of reply out. HTTP, a WebSocket message and the in-process call
 * (kernel.call, the harness) each implement it; the lifecycle decides what is written when, the
 * Wire how.
 */
import type { GatewayError } from '../contract/errors.js'
import type { Outcome } from '../contract/plugin.js'
import type { BytesReply, EventsReply, JsonReply, Reply, StreamItem, TextReply } from '../contract/reply.js'
import type { KernelExchange } from '../run/create-exchange.js'
import type { ChainState } from '../run/chain.js'

export type WholeReply = JsonReply | TextReply | (BytesReply & { data: Uint8Array })

/** Nothing: the reply reached its reader as written. A promise: whether it did, once that is known. */
type Sent = Promise<boolean> | undefined

/** Where the chunk loop sends a stream's events. */
export interface EventSink {
  /** Before each read: true to read on, false when the reader has gone, a promise while it cannot take more yet. */
  ready(): boolean | Promise<boolean>
  /** One event, after the chunk phases (still serialized when no chunk phase had to see it). */
  send(event: StreamItem): void
  /** The stream completed. */
  end(): void
  /** The stream failed, or its source gave up because the request was aborted. */
  fail(outcome: Outcome): void
}

/** How a transport carries an exchange: its body in, its reply out. */
export interface Wire {
  /** A socket's end of the request: an internal error is logged here (an in-process caller gets it thrown instead). */
  readonly boundary: boolean
  /** The request's JSON body, for a route that takes one. */
  body?(): unknown
  /** Throws for a reply this transport cannot carry, which is then answered as an error. */
  accept?(reply: Reply): void
  /** The route failed before its reply: write the error. */
  error(ex: KernelExchange, error: GatewayError): Sent
  whole(ex: KernelExchange, reply: WholeReply): Sent
  events(ex: KernelExchange, reply: EventsReply): EventSink
  /** Streamed bytes, which end the exchange themselves once they end in any way. */
  bytes(ex: KernelExchange, reply: BytesReply, data: AsyncIterable<Uint8Array>): Promise<void> | undefined
  /** The exchange is over: its finish phases have run. */
  ended?(outcome: Outcome, finishErrors: ChainState['finishErrors']): void
}
