/**
 * The HTTP transport: turns a request into an Exchange, runs the route, and writes the reply.
 * This is the only place replies reach an HTTP socket: JSON, text, bytes (whole or streamed)
 * and server-sent events, with the in-band error event for a stream that fails.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Generation } from '../run/generation.js'
import type { LoadedRoute } from '../run/route.js'
import { SerializedEvent, type EventsReply, type Reply, type StreamEvent } from '../contract/reply.js'
import type { Outcome } from '../contract/plugin.js'
import { createExchange, type KernelExchange } from '../run/create-exchange.js'
import { enteredChunkSteps, finishAll, outcomeOf, passChunk, runRequest, wrapBytes, type ChainState } from '../run/chain.js'
import { GatewayError, toGatewayError } from '../contract/errors.js'
import { checkBody, incomingBody, parseJson, readAll } from './body.js'
import { describeCause } from '../contract/log.js'
import { jsonText } from '../contract/relayed-json.js'
import { endJson } from './replies/end-json.js'
import { endWhole, setContentType } from './replies/end-whole.js'

/** What a request is besides its socket, read as Koa and @koa/router read it (path undecoded, params decoded). */
export interface HttpTarget {
  readonly requestId: string
  readonly path: string
  readonly querystring: string
  readonly params: Record<string, string>
}

export async function serveHttp(gen: Generation, route: LoadedRoute, req: IncomingMessage, res: ServerResponse, target: HttpTarget): Promise<void> {
  const server = gen.config.server
  const bodyLimit = Math.min(route.bodyLimit ?? Infinity, server.body_limit_bytes)
  const ex = createExchange({
    id: target.requestId,
    route: route.info,
    transport: 'http',
    method: req.method!,
    path: target.path,
    params: target.params,
    query: new URLSearchParams(target.querystring),
    headers: req.headers,
    incoming: route.body.kind === 'raw' ? incomingBody(req, bodyLimit) : undefined,
    headerPrefix: server.header_prefix,
    timeoutMs: server.limits.request_timeout_ms,
    log: gen.log,
    now: gen.now(),
    demand: route.demand,
  })
  const state: ChainState = { entered: 0, finished: false, track: gen.track }
  res.once('close', () => {
    if (!res.writableFinished) ex.abortByClient()
  })
  try {
    if (route.body.kind === 'json') {
      ex.body = checkBody(route.body, parseJson(await readAll(req, bodyLimit), server.limits.json_max_depth))
    }
    await runRequest(route, ex, state)
  } catch (err) {
    const error = toGatewayError(err)
    if (error.status >= 500 && error.code === 'internal') ex.log.error('request failed', { cause: describeCause(error.cause ?? error) })
    await gen.records.durable?.()
    writeError(res, ex, error, route)
    settleWhenSent(route, ex, state, res, outcomeOf(ex, err))
    return
  }
  // No reply leaves before what was recorded for it is safe from a crash (journal.ts).
  await gen.records.durable?.()
  await writeReply(route, ex, state, res, ex.reply!)
}

function applyHeaders(res: ServerResponse, ex: KernelExchange): void {
  for (const [k, v] of ex.headers) res.setHeader(k, v)
  ex.sealHeaders()
}

/** The one boundary: an error in the route's error style (the pipeline's `errors:`). */
function writeError(res: ServerResponse, ex: KernelExchange, error: GatewayError, route: LoadedRoute): void {
  applyHeaders(res, ex)
  for (const [k, v] of Object.entries(error.headers)) res.setHeader(k, v)
  const rendered = route.errors(error)
  endWhole(res, ex.method, rendered.status, rendered.contentType, rendered.body)
}

/** Finish phases run once the response is fully sent (done) or the socket closed early (aborted). */
function settleWhenSent(route: LoadedRoute, ex: KernelExchange, state: ChainState, res: ServerResponse, outcome: Outcome): void {
  const done = () => {
    ex.settle()
    const final: Outcome = res.writableFinished || outcome.kind !== 'done' ? outcome : { kind: 'aborted', status: 499 }
    void finishAll(route, ex, state, final)
  }
  if (res.writableFinished || res.destroyed) done()
  else res.once('close', done)
}

async function writeReply(route: LoadedRoute, ex: KernelExchange, state: ChainState, res: ServerResponse, reply: Reply): Promise<void> {
  applyHeaders(res, ex)
  if (reply.kind === 'events') return writeEventStream(res, ex, route, state, reply)
  if (reply.kind === 'json') endJson(res, ex.method, reply.status, jsonText(reply))
  else if (reply.kind === 'text') endWhole(res, ex.method, reply.status, reply.contentType, reply.text)
  else if (!(reply.data instanceof Uint8Array)) return writeByteStream(res, ex, reply.status, reply.contentType, wrapBytes(route, ex, state, reply.status, reply.data))
  else endWhole(res, ex.method, reply.status, reply.contentType, Buffer.from(reply.data.buffer, reply.data.byteOffset, reply.data.byteLength))
  settleWhenSent(route, ex, state, res, { kind: 'done', status: reply.status })
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

async function writeByteStream(res: ServerResponse, ex: KernelExchange, status: number, type: string, data: AsyncIterable<Uint8Array>): Promise<void> {
  res.statusCode = status
  setContentType(res, type)
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
    if (!(ex.signal.aborted && !(ex.signal.reason instanceof GatewayError))) ex.log.warn('byte stream failed', { cause: describeCause(err) })
    res.destroy()
  } finally {
    await it.return?.()
    ex.settle()
  }
}

/**
 * Server-sent events: one `data:` line per event, the terminator when the stream completes,
 * or the in-band error event (`{"error":{message,type,code}}`) and no terminator when it fails.
 * Events that arrive in the same turn of the event loop (one upstream read) are joined into one
 * write; the headers leave with the first batch and the terminator with the end. The chunk
 * phases run inline, and the finish phases once the response has ended.
 */
async function writeEventStream(res: ServerResponse, ex: KernelExchange, route: LoadedRoute, state: ChainState, reply: EventsReply): Promise<void> {
  res.statusCode = reply.status
  res.setHeader('content-type', 'text/event-stream; charset=utf-8')
  res.setHeader('cache-control', 'no-cache')
  res.setHeader('x-accel-buffering', 'no')
  const chunkSteps = enteredChunkSteps(route, state)
  const it = reply.events[Symbol.asyncIterator]()
  let outcome: Outcome = { kind: 'aborted', status: 499 }
  let pending = ''
  let scheduled = false
  let draining: Promise<void> | undefined
  const flush = () => {
    scheduled = false
    if (pending === '' || res.destroyed) return
    const text = pending
    pending = ''
    if (!res.write(text)) draining = waitDrain(res)
  }
  try {
    for (;;) {
      if (res.destroyed) break
      const { value, done } = await it.next()
      if (done) {
        outcome = { kind: 'done', status: reply.status }
        break
      }
      if (chunkSteps.length === 0 && value instanceof SerializedEvent && !reply.named) {
        pending += `data: ${value.json}\n\n`
      } else {
        const event = chunkSteps.length === 0 && !(value instanceof SerializedEvent) ? value : passChunk(chunkSteps, ex, value)
        if (event === null) continue
        pending += sseEvent(event, reply.named)
      }
      if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
      if (draining) {
        await draining
        draining = undefined
      }
    }
    if (!res.destroyed) {
      if (reply.terminator !== undefined) pending += `data: ${reply.terminator}\n\n`
      res.end(pending)
      pending = ''
    }
  } catch (err) {
    outcome = outcomeOf(ex, err)
    const error = outcome.error!
    if (error.code === 'internal') ex.log.error('stream failed', { cause: describeCause(error.cause ?? error) })
    if (!res.destroyed) {
      const event = reply.errorEvent?.(error) ?? { error: { message: error.message, type: error.type, code: error.status } }
      res.end(pending + sseEvent(event, reply.named))
      pending = ''
    }
  } finally {
    // The client gone: stop the source (which aborts the upstream request).
    if (outcome.kind === 'aborted') await it.return?.()
    ex.settle()
    await finishAll(route, ex, state, outcome)
  }
}

/** One server-sent event: `data:`, after `event:` with its `type` in the named dialects. */
function sseEvent(event: StreamEvent, named: boolean | undefined): string {
  return named && typeof event.type === 'string' ? `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n` : `data: ${JSON.stringify(event)}\n\n`
}
