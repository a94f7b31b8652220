/**
 * The WebSocket transport's envelope (docs/api-reference.md, "Query service over WebSocket"):
 * every message in is one JSON object whose `id` (the client's, optional) names the request;
 * every message out carries that `id` back, so several requests in flight on one socket are
 * told apart. The rest of a message in is the route's body; a message out is one streamed
 * event, a whole reply, or an error in the pipeline's error style. Pure: the kernel writes.
 */
import { GatewayError, type StreamEvent } from '../../kernel/contract/index.js'

/** Close codes the transport uses (RFC 6455 §7.4.1). */
export const CLOSE = {
  /** The server is going away (shutdown). */
  goingAway: 1001,
  /** Policy: the token no longer authenticates, too many requests in flight, a reader too slow. */
  policy: 1008,
  /** A message over `websocket.max_payload_bytes` (sent by `ws` itself). */
  tooBig: 1009,
  /** A fault of the transport itself (a request's own failure is an error message instead). */
  internal: 1011,
} as const

/** The client's id of a request: a string or a number, echoed as sent; null when absent or unreadable. */
export type MessageId = string | number | null

export interface IncomingMessage {
  readonly id: MessageId
  /** The message without `id`: the route's body. */
  readonly body: Record<string, unknown>
}

const bad = (message: string) => new GatewayError(400, message, { code: 'invalid_request' })

/**
 * Reads one text message, parsed by `parse` (the kernel's, which bounds the nesting depth as for
 * HTTP bodies). Throws 400 for anything but a JSON object with a usable id.
 */
export function readMessage(parse: () => unknown): IncomingMessage {
  let value: unknown
  try {
    value = parse()
  } catch (err) {
    throw new MessageError(
      null,
      err instanceof GatewayError ? err : bad(`message is not valid JSON: ${(err as Error).message}`),
    )
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new MessageError(null, bad('a message must be a JSON object'))
  const { id = null, ...body } = value as Record<string, unknown>
  const valid =
    id === null ||
    (typeof id === 'string' && id.length > 0 && id.length <= 128) ||
    (typeof id === 'number' && Number.isFinite(id))
  if (!valid) throw new MessageError(null, bad('id must be a string of 1 to 128 characters or a number'))
  return { id: id as MessageId, body }
}

/** A message that failed before it became a request: its error and whatever id it had. */
export class MessageError extends Error {
  constructor(
    readonly id: MessageId,
    readonly error: GatewayError,
  ) {
    super(error.message)
  }
}

/** Whether a route's `match` fields all equal the message's (`null`: the message lacks the field). */
export function matches(
  match: Readonly<Record<string, string | null>> | undefined,
  body: Record<string, unknown>,
): boolean {
  if (!match) return true
  for (const k in match) if (body[k] !== (match[k] ?? undefined)) return false
  return true
}

/** What a message asked for, for the "no route" error: the fields routes match on. */
export function askedFor(keys: Iterable<string>, body: Record<string, unknown>): string {
  const parts = [...new Set(keys)].map((k) => `${k} ${JSON.stringify(body[k] ?? null)}`)
  return parts.length ? parts.join(', ') : 'this message'
}

/** One streamed event as a message: the id first, then the event's own fields. */
export function eventMessage(id: MessageId, event: StreamEvent): string {
  return JSON.stringify({ id, ...event })
}

/**
 * An event that arrived as JSON text (relayed from a model server) as a message, without
 * parsing it: the id spliced in front of its fields.
 */
export function serializedEventMessage(id: MessageId, json: string): string {
  const rest = json.trimStart().slice(1).trimStart()
  return `{"id":${JSON.stringify(id)}${rest.startsWith('}') ? '' : ','}${rest}`
}

/** A whole (non-streamed) reply: `{"id","type":"response","status","body"}`. */
export function replyMessage(id: MessageId, status: number, body: unknown): string {
  return JSON.stringify({ id, type: 'response', status, body })
}

/**
 * An error as a message: `{"id","type":"error", …the pipeline's error body…}` (the Query
 * style's body is `{"error":{status,type,code?,message}}`), with the request id for support.
 */
export function errorMessage(id: MessageId, renderedBody: string, requestId?: string): string {
  let body: unknown
  try {
    body = JSON.parse(renderedBody)
  } catch {
    body = { error: { message: renderedBody } }
  }
  const fields =
    body !== null && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : { error: body }
  return JSON.stringify({ id, type: 'error', ...fields, ...(requestId ? { request_id: requestId } : {}) })
}

/** The HTTP response that refuses an upgrade (401/403 before the socket opens), as Node would write it. */
export function upgradeRefusal(
  status: number,
  statusText: string,
  contentType: string,
  body: string,
  headers: Readonly<Record<string, string>>,
): string {
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')
  return `HTTP/1.1 ${status} ${statusText}\r\ncontent-type: ${contentType}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}connection: close\r\n\r\n${body}`
}
