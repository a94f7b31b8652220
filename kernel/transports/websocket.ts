/**
 * The WebSocket transport: each JSON text message runs a route as an Exchange (transport 'ws'),
 * and only this file writes the socket. The first route of a path authenticates the upgrade
 * (its steps up to the one providing `principal`); a refusal is plain HTTP before the socket
 * opens. Every message, and the upgrade's authentication, runs through the one lifecycle
 * (run/lifecycle.ts). Messages: protocols/websocket/; backpressure and ping: websocket-flow/.
 */
import crypto from 'node:crypto'
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type RawData, type WebSocket } from 'ws'
import type { Generation } from '../run/generation.js'
import type { LoadedRoute } from '../run/route.js'
import type { Principal } from '../contract/exchange.js'
import type { Phases } from '../contract/plugin.js'
import { SerializedEvent, type Reply } from '../contract/reply.js'
import { createExchange, type KernelExchange } from '../run/create-exchange.js'
import { runExchange } from '../run/lifecycle.js'
import type { EventSink, WholeReply, Wire } from './wire.js'
import { GatewayError } from '../contract/errors.js'
import { parseJson } from '../../protocols/http/json-body.js'
import { defaultErrorStyle } from './error-styles.js'
import { describeCause, type Logger } from '../contract/log.js'
import {
  CLOSE,
  MessageError,
  askedFor,
  errorMessage,
  eventMessage,
  matches,
  readMessage,
  replyMessage,
  serializedEventMessage,
  upgradeRefusal,
  type IncomingMessage as SocketMessage,
} from '../../protocols/websocket/envelope.js'
import { SocketFlow, heartbeat } from './websocket-flow/socket-flow.js'

/** What a socket keeps of its upgrade for every message: who, and the request it came with. */
type Upgrade = {
  readonly path: string
  readonly query: URLSearchParams
  readonly headers: IncomingMessage['headers']
  readonly principal?: Principal
  readonly peer?: string
}

export function serveWebSockets(
  server: Server,
  current: () => Generation,
  log: Logger,
): { drain(): void; close(): void } {
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
      if (socket.writable)
        socket.end(upgradeRefusal(r.status, STATUS_CODES[r.status] ?? '', r.contentType, r.body, headers))
      socket.destroy()
    }
    if (!route || draining)
      return refuse(
        draining
          ? new GatewayError(503, 'server shutting down')
          : new GatewayError(404, 'unknown endpoint', { code: 'unknown_endpoint' }),
      )
    const up = { path: url.pathname, query: url.searchParams, headers: req.headers, peer: req.socket.remoteAddress }
    const ex = exchangeFor(gen, route, up, requestId, 'GET')
    // The route's authenticating steps alone, then a step that lets the socket open.
    const steps = route.steps.slice(0, route.ws!.authSteps)
    const auth: LoadedRoute = {
      ...route,
      body: { kind: 'none' },
      steps: [...steps, { name: 'upgrade', index: steps.length, phases: UPGRADE }],
      chunkSteps: [],
    }
    await runExchange(
      auth,
      ex,
      {
        boundary: true,
        error: (_ex, error) => void refuse(error, route.errors),
        whole: () =>
          void wss.handleUpgrade(req, socket, head, (ws) => connect(ws, socket, { ...up, principal: ex.principal })),
        events: unreachable,
        bytes: unreachable,
      },
      gen.runOptions,
    )
  }

  function exchangeFor(
    gen: Generation,
    route: LoadedRoute,
    up: Upgrade,
    id: string,
    method: string,
    signal?: AbortSignal,
    body?: unknown,
  ): KernelExchange {
    const { server } = gen.config
    const ex = createExchange({
      ...up,
      id,
      route: route.info,
      transport: 'ws',
      method,
      body,
      headerPrefix: server.header_prefix,
      timeoutMs: server.limits.request_timeout_ms,
      parentSignal: signal,
      log: gen.log,
      now: gen.now(),
      demand: route.demand,
    })
    ex.state.peer = up.peer
    return ex
  }

  function connect(ws: WebSocket, raw: Duplex, up: Upgrade): void {
    const flow = new SocketFlow(ws, raw, {
      highWaterBytes: settings.high_water_bytes,
      maxBufferedBytes: settings.max_buffered_bytes,
      drainTimeoutMs: settings.drain_timeout_ms,
    })
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
        if (isBinary)
          throw new MessageError(
            null,
            new GatewayError(400, 'binary messages are not served: send JSON text', { code: 'invalid_request' }),
          )
        const message = readMessage(() => parseJson(data as Buffer, gen.config.server.limits.json_max_depth))
        const route = routes.find((r) => matches(r.ws!.match, message.body))
        if (!route || draining) {
          const error = draining
            ? new GatewayError(503, 'server shutting down')
            : new GatewayError(
                400,
                `no route on this socket serves ${askedFor(
                  routes.flatMap((r) => Object.keys(r.ws!.match ?? {})),
                  message.body,
                )}`,
                { code: 'invalid_request' },
              )
          throw new MessageError(message.id, error)
        }
        if (inFlight >= settings.max_in_flight)
          return ws.close(CLOSE.policy, `more than ${settings.max_in_flight} requests in flight`)
        inFlight++
        const leave = gen.enter()
        const ex = exchangeFor(gen, route, up, crypto.randomUUID(), 'WS', gone.signal, message.body)
        void runExchange(route, ex, new MessageWire(ws, flow, route, message), gen.runOptions)
          .finally(() => {
            inFlight--
            leave()
          })
          .catch((err: unknown) => {
            log.error('websocket request failed', { cause: describeCause(err) })
            ws.close(CLOSE.internal, 'internal error')
          })
      } catch (err) {
        if (err instanceof MessageError) return void flow.send(errorMessage(err.id, style(err.error).body))
        log.error('websocket message failed', { cause: describeCause(err) })
        ws.close(CLOSE.internal, 'internal error')
      }
    })
  }

  return {
    drain: () => void (draining = true), // shutdown: no new socket or request; those in flight finish
    close: () => {
      for (const ws of wss.clients) ws.close(CLOSE.goingAway, 'server shutting down')
      wss.close()
    },
  }
}

/** The last step of an upgrade: the socket may open (the outcome its finish phases see is 101). */
const UPGRADE: Phases = {
  async request(ex) {
    ex.reply = { kind: 'json', status: 101, body: null }
  },
}

function unreachable(): never {
  throw new Error('an upgrade has no streamed reply')
}

/** One message's request on its socket: each reply, event or error one message with the client's id. */
class MessageWire implements Wire {
  readonly boundary = true
  private refused = false

  constructor(
    private readonly ws: WebSocket,
    private readonly flow: SocketFlow,
    private readonly route: LoadedRoute,
    private readonly message: SocketMessage,
  ) {}

  body(): unknown {
    return this.message.body
  }

  accept(reply: Reply): void {
    if (reply.kind !== 'json' && reply.kind !== 'events')
      throw new GatewayError(501, `this route answers ${reply.kind}, which is not served over the WebSocket yet`)
  }

  error(ex: KernelExchange, error: GatewayError): undefined {
    // The token stopped authenticating (deleted, disabled): the socket's permission is gone.
    if (error.status === 401) this.refused = true
    this.flow.send(errorMessage(this.message.id, this.route.errors(error).body, ex.id))
    return undefined
  }

  whole(ex: KernelExchange, reply: WholeReply): undefined {
    ex.sealHeaders()
    if (reply.kind === 'json') this.flow.send(replyMessage(this.message.id, reply.status, reply.body))
    return undefined
  }

  events(ex: KernelExchange): EventSink {
    ex.sealHeaders()
    const { flow } = this
    const id = this.message.id
    return {
      ready: () => (flow.over ? flow.drained().then((open) => open && flow.open) : flow.open),
      send: (event) =>
        void flow.send(
          event instanceof SerializedEvent ? serializedEventMessage(id, event.json) : eventMessage(id, event),
        ),
      end() {},
      // A failure mid-stream is one error message (never a silent stop); a reader gone hears nothing.
      fail: (outcome) => void (outcome.kind !== 'aborted' && this.error(ex, outcome.error!)),
    }
  }

  bytes(): never {
    throw new Error('bytes are refused before they reach the WebSocket')
  }

  ended(): void {
    if (this.refused) this.ws.close(CLOSE.policy, 'access token no longer valid')
  }
}
