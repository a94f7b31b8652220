/**
 * The WebSocket transport: each JSON text message runs a route as an Exchange (transport 'ws'),
 * and only this file writes the socket. The first route of a path authenticates the upgrade
 * (its steps up to the one providing `principal`); a refusal is plain HTTP before the socket
 * opens. Messages: protocols/websocket/; backpressure and ping: services/websocket/.
 */
import crypto from 'node:crypto'
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type RawData, type WebSocket } from 'ws'
import type { Generation } from '../run/generation.js'
import type { LoadedRoute } from '../run/route.js'
import type { Principal } from '../contract/exchange.js'
import type { Outcome } from '../contract/plugin.js'
import { SerializedEvent, type EventsReply } from '../contract/reply.js'
import { createExchange, type KernelExchange } from '../run/create-exchange.js'
import { enteredChunkSteps, finishAll, outcomeOf, passChunk, runRequest, type ChainState } from '../run/chain.js'
import { GatewayError, toGatewayError } from '../contract/errors.js'
import { checkBody, parseJson } from './body.js'
import { defaultErrorStyle } from '../run/error-styles.js'
import { describeCause, type Logger } from '../contract/log.js'
import { CLOSE, MessageError, askedFor, errorMessage, eventMessage, matches, readMessage, replyMessage, serializedEventMessage, upgradeRefusal, type MessageId } from '../../protocols/websocket/envelope.js'
import { SocketFlow, heartbeat } from './websocket-flow/socket-flow.js'

/** What a socket keeps of its upgrade for every message: who, and the request it came with. */
type Upgrade = { readonly path: string; readonly query: URLSearchParams; readonly headers: IncomingMessage['headers']; readonly principal?: Principal }

export function serveWebSockets(server: Server, current: () => Generation, log: Logger): { drain(): void; close(): void } {
  const settings = current().config.server.websocket
  const wss = new WebSocketServer({ noServer: true, maxPayload: settings.max_payload_bytes, perMessageDeflate: false })
  let draining = false
  const routesOf = (gen: Generation, path: string) => [...gen.routes.values()].filter((r) => r.ws?.path === path)

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node has taken its listeners off the socket: a reset during the async auth must not throw.
    socket.on('error', () => socket.destroy())
    void upgrade(req, socket, head).catch((err: unknown) => {
      log.error('websocket upgrade failed', { cause: describeCause(err) })
      socket.destroy()
    })
  })

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const gen = current()
    const url = new URL(req.url ?? '/', 'http://gateway')
    const route = routesOf(gen, url.pathname)[0]
    const requestId = crypto.randomUUID()
    const refuse = (error: GatewayError, style = defaultErrorStyle) => {
      const r = style(error)
      const headers = { ...error.headers, [`${gen.config.server.header_prefix}request-id`]: requestId }
      if (socket.writable) socket.end(upgradeRefusal(r.status, STATUS_CODES[r.status] ?? '', r.contentType, r.body, headers))
      socket.destroy()
    }
    if (!route || draining) return refuse(draining ? new GatewayError(503, 'server shutting down') : new GatewayError(404, 'unknown endpoint', { code: 'unknown_endpoint' }))
    const ex = exchangeFor(gen, route, { path: url.pathname, query: url.searchParams, headers: req.headers }, requestId, 'GET')
    const state: ChainState = { entered: 0, finished: false, track: gen.track }
    try {
      // The route's authenticating steps alone, with a `next` that goes no further.
      const auth = { ...route, steps: route.steps.slice(0, route.ws!.authSteps) }
      const run = async (i: number): Promise<void> => {
        if (i === auth.steps.length) return
        state.entered = i + 1
        const request = auth.steps[i]!.phases.request
        await (request ? request(ex, () => run(i + 1)) : run(i + 1))
      }
      await run(0)
      await finishAll(auth, ex, state, { kind: 'done', status: 101 })
    } catch (err) {
      await finishAll(route, ex, state, outcomeOf(ex, err))
      return refuse(toGatewayError(err), route.errors)
    } finally {
      ex.settle()
    }
    wss.handleUpgrade(req, socket, head, (ws) => connect(ws, socket, { path: url.pathname, query: url.searchParams, headers: req.headers, principal: ex.principal }))
  }

  function exchangeFor(gen: Generation, route: LoadedRoute, up: Upgrade, id: string, method: string, signal?: AbortSignal): KernelExchange {
    const { server } = gen.config
    return createExchange({ ...up, id, route: route.info, transport: 'ws', method, headerPrefix: server.header_prefix, timeoutMs: server.limits.request_timeout_ms, parentSignal: signal, log: gen.log, now: gen.now(), demand: route.demand })
  }

  function connect(ws: WebSocket, raw: Duplex, up: Upgrade): void {
    const flow = new SocketFlow(ws, raw, { highWaterBytes: settings.high_water_bytes, maxBufferedBytes: settings.max_buffered_bytes, drainTimeoutMs: settings.drain_timeout_ms })
    // Aborted when the socket goes: every request in flight on it stops, and its finish phases run.
    const gone = new AbortController()
    const stopPing = heartbeat(ws, settings.ping_interval_ms)
    let inFlight = 0
    ws.on('error', (err) => log.debug('websocket error', { cause: describeCause(err) }))
    ws.on('close', () => {
      stopPing()
      gone.abort(new DOMException('client closed the socket', 'AbortError'))
    })
    ws.on('message', (data: RawData, isBinary: boolean) => {
      const gen = current()
      const routes = routesOf(gen, up.path)
      const style = routes[0]?.errors ?? defaultErrorStyle
      try {
        if (isBinary) throw new MessageError(null, new GatewayError(400, 'binary messages are not served: send JSON text', { code: 'invalid_request' }))
        const message = readMessage(() => parseJson(data as Buffer, gen.config.server.limits.json_max_depth))
        const route = routes.find((r) => matches(r.ws!.match, message.body))
        if (!route || draining) {
          const error = draining ? new GatewayError(503, 'server shutting down') : new GatewayError(400, `no route on this socket serves ${askedFor(routes.flatMap((r) => Object.keys(r.ws!.match ?? {})), message.body)}`, { code: 'invalid_request' })
          throw new MessageError(message.id, error)
        }
        if (inFlight >= settings.max_in_flight) return ws.close(CLOSE.policy, `more than ${settings.max_in_flight} requests in flight`)
        inFlight++
        void serve(gen, route, message.id, message.body).finally(() => inFlight--).catch((err: unknown) => {
          log.error('websocket request failed', { cause: describeCause(err) })
          ws.close(CLOSE.internal, 'internal error')
        })
      } catch (err) {
        if (err instanceof MessageError) return void flow.send(errorMessage(err.id, style(err.error).body))
        log.error('websocket message failed', { cause: describeCause(err) })
        ws.close(CLOSE.internal, 'internal error')
      }
    })

    async function serve(gen: Generation, route: LoadedRoute, id: MessageId, body: unknown): Promise<void> {
      const leave = gen.enter()
      const ex = exchangeFor(gen, route, up, crypto.randomUUID(), 'WS', gone.signal)
      const state: ChainState = { entered: 0, finished: false, track: gen.track }
      try {
        ex.body = route.body.kind === 'json' ? checkBody(route.body, body) : body
        await runRequest(route, ex, state)
      } catch (err) {
        const outcome = outcomeOf(ex, err)
        await gen.records.durable?.()
        fail(ex, id, route, outcome.error!)
        ex.settle()
        await finishAll(route, ex, state, outcome)
        // The token stopped authenticating (deleted, disabled): the socket's permission is gone.
        if (outcome.error!.status === 401) ws.close(CLOSE.policy, 'access token no longer valid')
        return leave()
      }
      ex.sealHeaders()
      await gen.records.durable?.()
      const reply = ex.reply!
      let outcome: Outcome = { kind: 'done', status: reply.status }
      if (reply.kind === 'events') outcome = await stream(ex, id, route, state, reply)
      else if (reply.kind === 'json') flow.send(replyMessage(id, reply.status, reply.body))
      else {
        const error = new GatewayError(501, `this route answers ${reply.kind}, which is not served over the WebSocket yet`)
        fail(ex, id, route, error)
        outcome = { kind: 'failed', status: 501, error }
      }
      ex.settle()
      await finishAll(route, ex, state, outcome)
      leave()
    }

    function fail(ex: KernelExchange, id: MessageId, route: LoadedRoute, error: GatewayError): void {
      if (error.code === 'internal') ex.log.error('request failed', { cause: describeCause(error.cause ?? error) })
      flow.send(errorMessage(id, route.errors(error).body, ex.id))
    }

    /** Each event one message; a failure mid-stream one error message (never a silent stop). */
    async function stream(ex: KernelExchange, id: MessageId, route: LoadedRoute, state: ChainState, reply: EventsReply): Promise<Outcome> {
      const chunkSteps = enteredChunkSteps(route, state)
      const it = reply.events[Symbol.asyncIterator]()
      let outcome: Outcome = { kind: 'aborted', status: 499 }
      try {
        for (;;) {
          if (flow.over && !(await flow.drained())) break
          if (!flow.open) break
          const { value, done } = await it.next()
          if (done) {
            outcome = { kind: 'done', status: reply.status }
            break
          }
          if (chunkSteps.length === 0 && value instanceof SerializedEvent) flow.send(serializedEventMessage(id, value.json))
          else {
            const event = passChunk(chunkSteps, ex, value)
            if (event !== null) flow.send(eventMessage(id, event))
          }
        }
      } catch (err) {
        outcome = outcomeOf(ex, err)
        if (outcome.kind !== 'aborted') fail(ex, id, route, outcome.error!)
      } finally {
        if (outcome.kind === 'aborted') await it.return?.()
      }
      return outcome
    }
  }

  return {
    drain: () => void (draining = true), // shutdown: no new socket or request; those in flight finish
    close: () => {
      for (const ws of wss.clients) ws.close(CLOSE.goingAway, 'server shutting down')
      wss.close()
    },
  }
}
