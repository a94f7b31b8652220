/**
 * The answer to a request Node refuses before any route sees it: headers past Node's size limit
 * (431), a request it cannot parse (400), a client too slow with its headers or body (408).
 * Node's own answer has no body and no request id; this one is a whole HTTP/1.1 response with
 * the documented error body and the request id, and no body when the refused request is a HEAD.
 * Pure: the transport decides whether it may still write to the socket.
 */
import { GatewayError } from '../../kernel/contract/index.js'
import { openaiErrorBody } from '../openai/error-body.js'

const refusals: Record<string, [status: number, reason: string, message: string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'request headers too large'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Payload Too Large', 'request chunk extensions too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request timed out'],
}
const malformed: [number, string, string] = [400, 'Bad Request', 'malformed HTTP request']

/** The response bytes for Node's `clientError`, or undefined when the peer is gone (nothing to answer). */
export function refusalResponse(
  err: NodeJS.ErrnoException,
  requestIdHeader: string,
  requestId: string,
): Buffer | undefined {
  if (err.code === 'ECONNRESET') return undefined
  const [status, reason, message] =
    (Object.hasOwn(refusals, err.code ?? '') ? refusals[err.code!] : undefined) ?? malformed
  const body = Buffer.from(JSON.stringify(openaiErrorBody(new GatewayError(status, message))))
  const head = `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n${requestIdHeader}: ${requestId}\r\nconnection: close\r\n\r\n`
  return refusedHead(err) ? Buffer.from(head) : Buffer.concat([Buffer.from(head), body])
}

/**
 * Whether the refused request is a HEAD. The parser's packet may hold earlier requests of the
 * connection: the refused one starts after the last blank line before the byte it stopped at.
 */
function refusedHead(err: NodeJS.ErrnoException): boolean {
  const { rawPacket, bytesParsed } = err as { rawPacket?: unknown; bytesParsed?: number }
  if (!Buffer.isBuffer(rawPacket)) return false
  const blank = rawPacket.lastIndexOf('\r\n\r\n', Math.max(0, (bytesParsed ?? rawPacket.length) - 1))
  const start = blank === -1 ? 0 : blank + 4
  return rawPacket.toString('latin1', start, start + 5) === 'HEAD '
}
