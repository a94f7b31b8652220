/**
 * The HTTP transport: a request that the front door (server.ts) routed to a pipeline route runs
 * as an Exchange through the lifecycle, and this Wire writes its reply to Node's response
 * itself (`ctx.respond = false`): JSON, text and bytes whole, bytes streamed, and server-sent
 * events with the in-band error event for a stream that fails. Koa's body handling (a MIME
 * lookup, a charset rule, content-length worked out again) is not on this path.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { RouterContext } from '@koa/router'
import type { Generation } from '../run/generation.js'
import type { LoadedRoute } from '../run/route.js'
import { SerializedEvent, type BytesReply, type EventsReply, type StreamItem } from '../contract/reply.js'
import type { Outcome } from '../contract/plugin.js'
import { createExchange, type KernelExchange } from '../run/create-exchange.js'
import { runExchange } from '../run/lifecycle.js'
import type { EventSink, WholeReply, Wire } from './wire.js'
import { GatewayError } from '../contract/errors.js'
import { incomingBody, readAll } from './body.js'
import { parseJsonTurns } from '../../protocols/http/json-body.js'
import { describeCause } from '../contract/log.js'
import { RelayedJson } from '../contract/relayed-json.js'
import { endJson, endWhole, setContentType } from './replies/end-whole.js'
import { sseData, sseEvent, streamError } from '../../protocols/http/sse.js'

/** Runs `route` for the request of `ctx` (Koa's path undecoded, the router's params decoded). */
export function serveHttp(gen: Generation, route: LoadedRoute, ctx: RouterContext, requestId: string): Promise<void> {
  const server = gen.config.server
  const req = ctx.req
  const bodyLimit = Math.min(route.bodyLimit ?? Infinity, server.body_limit_bytes)
  const ex = createExchange({
    id: requestId,
    route: route.info,
    transport: 'http',
    method: req.method!,
    path: ctx.path,
    params: ctx.params,
    query: new URLSearchParams(ctx.querystring),
    headers: req.headers,
    incoming: route.body.kind === 'raw' ? incomingBody(req, bodyLimit) : undefined,
    headerPrefix: server.header_prefix,
    timeoutMs: server.limits.request_timeout_ms,
    log: gen.log,
    now: gen.now(),
    demand: route.demand,
  })
  ex.state.peer = req.socket.remoteAddress
  return runExchange(
    route,
    ex,
    new HttpWire(route, ex, req, ctx.res, bodyLimit, server.limits.json_max_depth),
    gen.runOptions,
  )
}

class HttpWire implements Wire {
  readonly boundary = true
  private sent?: (finished: boolean) => void

  constructor(
    private readonly route: LoadedRoute,
    private readonly ex: KernelExchange,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly bodyLimit: number,
    private readonly jsonMaxDepth: number,
  ) {
    res.once('close', this.closed)
  }

  /** The response closed: fully sent, or the client went away first. */
  private readonly closed = (): void => {
    if (!this.res.writableFinished) this.ex.abortByClient()
    this.sent?.(this.res.writableFinished)
  }

  async body(): Promise<unknown> {
    return parseJsonTurns(await readAll(this.req, this.bodyLimit), this.jsonMaxDepth)
  }

  /** The one boundary: an error in the route's error style (the pipeline's `errors:`). */
  error(ex: KernelExchange, error: GatewayError): Promise<boolean> | undefined {
    this.applyHeaders(ex)
    for (const [k, v] of Object.entries(error.headers)) this.res.setHeader(k, v)
    const rendered = this.route.errors(error)
    endWhole(this.res, ex.method, rendered.status, rendered.contentType, rendered.body)
    return this.whenSent()
  }

  whole(ex: KernelExchange, reply: WholeReply): Promise<boolean> | undefined {
    this.applyHeaders(ex)
    // A large reply kept as its server's bytes is written as they are (a 79 MB string took 0.8 s to write).
    if (reply.kind === 'json')
      endJson(
        this.res,
        ex.method,
        reply.status,
        reply instanceof RelayedJson ? reply.serialize() : JSON.stringify(reply.body),
      )
    else if (reply.kind === 'text') endWhole(this.res, ex.method, reply.status, reply.contentType, reply.text)
    else
      endWhole(
        this.res,
        ex.method,
        reply.status,
        reply.contentType,
        Buffer.from(reply.data.buffer, reply.data.byteOffset, reply.data.byteLength),
      )
    return this.whenSent()
  }

  events(ex: KernelExchange, reply: EventsReply): EventSink {
    this.applyHeaders(ex)
    const res = this.res
    res.statusCode = reply.status
    res.setHeader('content-type', 'text/event-stream; charset=utf-8')
    res.setHeader('cache-control', 'no-cache')
    res.setHeader('x-accel-buffering', 'no')
    return new SseSink(res, reply)
  }

  bytes(ex: KernelExchange, reply: BytesReply, data: AsyncIterable<Uint8Array>): Promise<void> {
    this.applyHeaders(ex)
    return writeByteStream(this.res, ex, reply, data)
  }

  private applyHeaders(ex: KernelExchange): void {
    for (const [k, v] of ex.headers) this.res.setHeader(k, v)
    ex.sealHeaders()
  }

  /** Whether a whole reply reached the client: known when the response closes. */
  private whenSent(): Promise<boolean> | undefined {
    if (this.res.writableFinished) return undefined
    if (this.res.destroyed) return Promise.resolve(false)
    return new Promise((resolve) => (this.sent = resolve))
  }
}

function waitDrain(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done)
      res.off('close', done)
      resolve()
    }
    res.on('drain', done)
    res.on('close', done)
  })
}

async function writeByteStream(
  res: ServerResponse,
  ex: KernelExchange,
  reply: BytesReply,
  data: AsyncIterable<Uint8Array>,
): Promise<void> {
  res.statusCode = reply.status
  setContentType(res, reply.contentType)
  res.flushHeaders()
  const it = data[Symbol.asyncIterator]()
  try {
    for (;;) {
      if (res.destroyed) break
      const { value, done } = await it.next()
      if (done) break
      if (!res.write(value)) await waitDrain(res)
    }
    if (!res.destroyed) res.end()
  } catch (err) {
    // A client that went away is not a failure of the stream; only a cut upstream is worth a line.
    if (!(ex.signal.aborted && !(ex.signal.reason instanceof GatewayError)))
      ex.log.warn('byte stream failed', { cause: describeCause(err) })
    res.destroy()
  } finally {
    await it.return?.()
    ex.settle()
  }
}

/**
 * Server-sent events (protocols/http/sse.ts): one `data:` line per event, the terminator when the
 * stream completes, or the in-band error event and no terminator when it fails. Events that
 * arrive in the same turn of the event loop (one upstream read) are joined into one write; the
 * headers leave with the first batch and the terminator with the end.
 */
class SseSink implements EventSink {
  private pending = ''
  private scheduled = false
  private draining: Promise<void> | undefined

  constructor(
    private readonly res: ServerResponse,
    private readonly reply: EventsReply,
  ) {}

  ready(): boolean | Promise<boolean> {
    if (this.res.destroyed) return false
    if (!this.draining) return true
    return this.draining.then(this.drained)
  }

  private readonly drained = (): boolean => {
    this.draining = undefined
    return !this.res.destroyed
  }

  send(event: StreamItem): void {
    const named = this.reply.named
    this.pending +=
      event instanceof SerializedEvent && !named
        ? sseData(event.json)
        : sseEvent(event instanceof SerializedEvent ? event.parse() : event, named)
    if (!this.scheduled) {
      this.scheduled = true
      setImmediate(this.flush)
    }
  }

  private readonly flush = (): void => {
    this.scheduled = false
    if (this.pending === '' || this.res.destroyed) return
    const text = this.pending
    this.pending = ''
    if (!this.res.write(text)) this.draining = waitDrain(this.res)
  }

  end(): void {
    if (this.res.destroyed) return
    if (this.reply.terminator !== undefined) this.pending += sseData(this.reply.terminator)
    this.res.end(this.pending)
    this.pending = ''
  }

  fail(outcome: Outcome): void {
    if (this.res.destroyed) return
    const error = outcome.error!
    const event = this.reply.errorEvent?.(error) ?? streamError(error)
    this.res.end(this.pending + sseEvent(event, this.reply.named))
    this.pending = ''
  }
}
