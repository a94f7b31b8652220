/**
 * A whole text or byte reply, or a rendered error, written to the response the way Koa's
 * `status`, `type` and `body` setters and its `respond()` write it: the same header names
 * (`Content-Type`, `Content-Length`), the same content type with the charset that `mime-types`
 * adds, no body for HEAD, and none (nor its headers) for 204, 205 and 304. A route's reply
 * goes straight to Node's response (`ctx.respond = false`: Koa's setters cost a chat request
 * ~5 % of its CPU), so the kernel writes these itself; a test holds them to Koa's bytes
 * (test/kernel/end-whole.test.ts).
 */
import type { ServerResponse } from 'node:http'
import { contentType } from 'mime-types'

/** Statuses that carry no body (Koa's `statuses.empty`). */
const EMPTY: ReadonlySet<number> = new Set([204, 205, 304])

/** Koa's `ctx.type = type`: the full content type, or the header removed for a type it cannot name. */
export function setContentType(res: ServerResponse, type: string): boolean {
  const full = contentType(type)
  if (full) res.setHeader('Content-Type', full)
  else res.removeHeader('Content-Type')
  return full !== false
}

/** Koa's `ctx.writable`: false once the response ended or its socket cannot be written. */
function writable(res: ServerResponse): boolean {
  if (res.writableEnded) return false
  return res.socket ? res.socket.writable : true
}

export function endWhole(
  res: ServerResponse,
  method: string | undefined,
  status: number,
  type: string,
  body: string | Buffer,
): void {
  res.statusCode = status
  // A type Koa cannot name: its body setter then picks one from the body.
  if (!setContentType(res, type))
    setContentType(res, typeof body !== 'string' ? 'bin' : /^\s*</.test(body) ? 'html' : 'text')
  if (!res.hasHeader('Transfer-Encoding'))
    res.setHeader('Content-Length', typeof body === 'string' ? Buffer.byteLength(body) : body.length)
  if (!writable(res)) return void res.end()
  if (EMPTY.has(status)) {
    res.removeHeader('Content-Type')
    res.removeHeader('Content-Length')
    res.removeHeader('Transfer-Encoding')
    return void res.end()
  }
  if (method === 'HEAD') res.end()
  else res.end(body)
}

/** A whole JSON reply (text or its UTF-8 bytes): its headers are known, so no setter's rules are worked out again. */
export function endJson(res: ServerResponse, method: string | undefined, status: number, json: string | Buffer): void {
  res.statusCode = status
  if (EMPTY.has(status)) return void res.end()
  res.setHeader('content-type', 'application/json; charset=utf-8')
  res.setHeader('content-length', typeof json === 'string' ? Buffer.byteLength(json) : json.length)
  if (method === 'HEAD') res.end()
  else res.end(json)
}
