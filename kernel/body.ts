/**
 * Reading request bodies with a hard limit: a declared Content-Length over the limit is refused
 * before a byte is read, and a body that grows past it is refused as soon as it does, so the
 * excess is never buffered.
 */
import type { IncomingMessage } from 'node:http'
import type { IncomingBody } from './exchange.js'
import { GatewayError } from './errors.js'

export function tooLarge(): GatewayError {
  return new GatewayError(413, 'request body too large', { code: 'body_too_large' })
}

function declaredLength(req: IncomingMessage): number | undefined {
  const v = req.headers['content-length']
  if (v === undefined) return undefined
  const n = Number(v)
  return Number.isFinite(n) && n >= 0 ? n : undefined
}

export async function readAll(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = declaredLength(req)
  if (declared !== undefined && declared > limit) {
    req.resume()
    throw tooLarge()
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > limit) {
      // Stop reading: drop what arrived and let the rest drain unbuffered.
      chunks.length = 0
      req.resume()
      throw tooLarge()
    }
    chunks.push(chunk)
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)
}

export function incomingBody(req: IncomingMessage, defaultLimit: number): IncomingBody {
  let used = false
  const claim = () => {
    if (used) throw new Error('request body already read')
    used = true
  }
  return {
    contentType: req.headers['content-type'],
    contentLength: declaredLength(req),
    read(limit = defaultLimit) {
      claim()
      return readAll(req, limit)
    },
    stream() {
      claim()
      return req as AsyncIterable<Buffer>
    },
  }
}

export function parseJson(buf: Buffer): unknown {
  try {
    return JSON.parse(buf.toString('utf8'))
  } catch (err) {
    throw new GatewayError(400, `request body is not valid JSON: ${(err as Error).message}`, { code: 'invalid_json' })
  }
}
