/**
 * Requests Node refuses before the gateway sees them: headers past Node's size limit (431), a
 * request it cannot parse (400), a client too slow with its headers or body (408). Node's own
 * answer has no body and no request id; this one is the documented error body with
 * `x-gateway-request-id`, like every other answer. As Node does, nothing is written once a
 * response on the connection has begun (the peer would read a corrupt stream), and the
 * connection is closed either way.
 */
import crypto from 'node:crypto'
import type { Duplex } from 'node:stream'
import { GatewayError } from './errors.js'
import { defaultErrorStyle } from './error-styles.js'

const refusals: Record<string, [status: number, reason: string, message: string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'request headers too large'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Payload Too Large', 'request chunk extensions too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request timed out'],
}
const malformed: [number, string, string] = [400, 'Bad Request', 'malformed HTTP request']

export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, headerPrefix: string): void {
  // Node's own test of "no response begun on this socket" (lib/_http_server.js socketOnError).
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (err.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
    const [status, reason, message] = refusals[err.code ?? ''] ?? malformed
    const rendered = defaultErrorStyle(new GatewayError(status, message))
    const body = Buffer.from(rendered.body)
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\ncontent-type: ${rendered.contentType}\r\ncontent-length: ${body.length}\r\n` +
        `${headerPrefix}request-id: ${crypto.randomUUID()}\r\nconnection: close\r\n\r\n`,
    )
    if (!refusedHead(err)) socket.write(body)
  }
  socket.destroy()
}

/**
 * Whether the refused request is a HEAD, whose answer has no body. The parser's packet may hold
 * earlier requests of the connection: the refused one starts after the last blank line before
 * the byte the parser stopped at.
 */
function refusedHead(err: NodeJS.ErrnoException): boolean {
  const { rawPacket, bytesParsed } = err as { rawPacket?: Buffer; bytesParsed?: number }
  if (!Buffer.isBuffer(rawPacket)) return false
  const blank = rawPacket.lastIndexOf('\r\n\r\n', Math.max(0, (bytesParsed ?? rawPacket.length) - 1))
  const start = blank === -1 ? 0 : blank + 4
  return rawPacket.toString('latin1', start, start + 5) === 'HEAD '
}
