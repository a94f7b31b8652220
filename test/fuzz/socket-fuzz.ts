/**
 * The WebSocket door: hostile messages at every `ws:` route of the loaded generation. The
 * upgrade is tried with no token and bad ones (a 401 before the socket opens, never a socket);
 * then, on sockets opened with a valid token, each input is one text message made by the JSON
 * mutators from a valid message of the route (mutated ids and actions included), sent one at a
 * time per socket and answered by an error message of the documented shape with a 4xx, or by
 * the route's final message. Never an error message with a 5xx of the gateway's own, never a
 * close other than 1009 (a message over the payload bound), never a hang.
 */
import WebSocket from 'ws'
import type { RunningGateway } from '../../bin/gateway.js'
import { bodySchemas } from '../../schemas/bodies.js'
import { TEST_SERVICE_TOKEN } from '../support/gateway.js'
import { jsonMutation } from './json-mutations.js'
import { inputRandom } from './random.js'
import type { DoorTally, Failure } from './campaign.js'

export interface SocketTarget {
  readonly routeId: string
  readonly path: string
  readonly match: Readonly<Record<string, string>>
  readonly schema?: string
}

/** The `ws:` routes of a generation. */
export function socketTargets(gen: ReturnType<RunningGateway['generation']>): SocketTarget[] {
  const out: SocketTarget[] = []
  for (const r of gen.routes.values()) {
    if (!r.ws) continue
    out.push({
      routeId: r.info.id,
      path: r.ws.path,
      match: presentFields(r.ws.match),
      schema: r.body.kind === 'json' ? r.body.schema : undefined,
    })
  }
  return out
}

/** A route's match as fields a message carries (a `null` match is a field left out). */
function presentFields(match: Readonly<Record<string, string | null>> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(match ?? {}).filter((e): e is [string, string] => e[1] !== null))
}

/** A valid message of each socket schema: small answers, so a run stays fast. */
const validMessages: Record<string, object> = {
  'query-request': {
    endpoint: 'query',
    query: 'What is a key?',
    request_source: 'override_params',
    model_params: { max_tokens: 4 },
  },
  'query-compare-request': { query: 'What is a key?', model_provider: 'gateway', model_name: 'sim-chat-instruct' },
}

interface SocketFuzzOptions {
  seed: number
  inputs: number
  sockets: number
  maxBytes: number
  timeoutMs: number
  deadline: number
  only?: string
}

export async function fuzzSockets(
  gw: RunningGateway,
  options: SocketFuzzOptions,
): Promise<{ tally: DoorTally; failures: Failure[]; gateway5xx: number }> {
  const tally: DoorTally = { inputs: 0, statuses: {}, routes: {} }
  const failures: Failure[] = []
  let gateway5xx = 0
  const targets = socketTargets(gw.generation())
  const base = gw.url.replace(/^http/, 'ws')
  const fail = (index: number, t: SocketTarget, auth: string, mutation: string, reason: string, body = '') =>
    failures.push({
      door: 'websocket',
      index,
      routeId: t.routeId,
      method: 'WS',
      path: t.path,
      auth,
      mutation,
      reason,
      body,
    })
  if (targets.length === 0) return { tally, failures, gateway5xx }

  // The upgrade with no token and bad ones: refused before the socket opens.
  for (const [i, token] of ['', 'qt-fuzz-not-a-token', 'k'.repeat(4000), '%00'].entries()) {
    const t = targets[0]!
    const status = await upgradeStatus(`${base}${t.path}${token ? `?access_token=${token}` : ''}`, options.timeoutMs)
    tally.statuses[`upgrade ${status}`] = (tally.statuses[`upgrade ${status}`] ?? 0) + 1
    if (status !== 401)
      fail(-1 - i, t, `token ${JSON.stringify(token.slice(0, 16))}`, 'upgrade', `upgrade answered ${status}, not 401`)
  }

  let next = 0
  const worker = async () => {
    let socket: WebSocket | undefined
    while (next < options.inputs && Date.now() < options.deadline) {
      const index = next++
      if (options.only && options.only !== `websocket#${index}`) continue
      const rng = inputRandom(options.seed, 'websocket', index)
      const t = rng.pick(targets)
      const valid = { ...(validMessages[t.schema ?? ''] ?? {}), ...t.match, id: `fz-${index}` }
      const { mutation, body } = jsonMutation(
        rng,
        valid,
        t.schema === undefined ? undefined : bodySchemas[t.schema],
        index,
        options.maxBytes,
      )
      tally.inputs++
      tally.routes[t.routeId] = (tally.routes[t.routeId] ?? 0) + 1
      socket ??= await open(`${base}${t.path}?access_token=${TEST_SERVICE_TOKEN}`)
      const answer = await exchange(socket, body.toString('utf8'), options.timeoutMs)
      const label =
        answer.kind === 'message'
          ? `${answer.type} ${answer.status ?? ''}`.trim()
          : `${answer.kind} ${answer.code ?? ''}`.trim()
      tally.statuses[label] = (tally.statuses[label] ?? 0) + 1
      const shown = JSON.stringify(body.subarray(0, 300).toString('latin1'))
      if (answer.kind === 'closed') {
        socket = undefined
        if (answer.code !== 1009)
          fail(index, t, 'valid token', mutation, `socket closed with ${answer.code} ${answer.reason ?? ''}`, shown)
      } else if (answer.kind === 'timeout') {
        socket.terminate()
        socket = undefined
        fail(index, t, 'valid token', mutation, `no final message within ${options.timeoutMs} ms`, shown)
      } else if (
        answer.type === 'error' &&
        (answer.status === undefined ||
          (answer.status >= 500 && answer.status !== 501) ||
          typeof answer.message !== 'string')
      ) {
        if ((answer.status ?? 500) >= 500) gateway5xx++
        fail(index, t, 'valid token', mutation, `error message ${answer.status}: ${answer.message}`, shown)
      }
    }
    socket?.close()
  }
  await Promise.all(Array.from({ length: options.sockets }, worker))
  return { tally, failures, gateway5xx }
}

type SocketAnswer =
  | { kind: 'message'; type: string; status?: number; message?: unknown }
  | { kind: 'closed'; code: number; reason?: string }
  | { kind: 'timeout'; code?: undefined }

function open(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url)
    ws.once('open', () => resolve(ws))
    ws.once('error', reject)
  })
}

/** Sends one message and waits for its last answer: an error, a `*.done`, or a whole reply. */
function exchange(ws: WebSocket, text: string, timeoutMs: number): Promise<SocketAnswer> {
  return new Promise((resolve) => {
    const done = (answer: SocketAnswer) => {
      clearTimeout(timer)
      ws.off('message', onMessage)
      ws.off('close', onClose)
      resolve(answer)
    }
    const onMessage = (data: WebSocket.RawData) => {
      const m = JSON.parse(data.toString()) as { type?: string; error?: { status?: number; message?: unknown } }
      if (m.type === 'error')
        done({ kind: 'message', type: 'error', status: m.error?.status, message: m.error?.message })
      else if (m.type === 'response' || /\.done$/.test(m.type ?? '')) done({ kind: 'message', type: m.type! })
    }
    const onClose = (code: number, reason: Buffer) => done({ kind: 'closed', code, reason: reason.toString() })
    const timer = setTimeout(() => done({ kind: 'timeout' }), timeoutMs)
    ws.on('message', onMessage)
    ws.on('close', onClose)
    if (ws.readyState !== WebSocket.OPEN) return done({ kind: 'closed', code: 1006 })
    ws.send(text)
  })
}

function upgradeStatus(url: string, timeoutMs: number): Promise<number | string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url)
    const timer = setTimeout(() => (ws.terminate(), resolve('timeout')), timeoutMs)
    ws.on('error', () => undefined)
    ws.on('open', () => {
      clearTimeout(timer)
      ws.close()
      resolve('opened')
    })
    ws.on('unexpected-response', (_req, res) => {
      clearTimeout(timer)
      res.resume()
      resolve(res.statusCode ?? 0)
    })
  })
}
