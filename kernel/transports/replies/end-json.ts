/**
 * A whole JSON reply written to the socket's response directly. Koa's status, type and body
 * setters cost about 5 % of a chat request's CPU (a MIME lookup, a charset rule, four arrays a
 * header, content-length worked out again) for a reply whose headers are known. The headers are
 * those Koa wrote (the names in lower case).
 */
import type { ServerResponse } from 'node:http'
import { EMPTY } from './end-whole.js'

export function endJson(res: ServerResponse, method: string | undefined, status: number, text: string): void {
  res.statusCode = status
  if (EMPTY.has(status)) {
    res.end()
    return
  }
  res.setHeader('content-type', 'application/json; charset=utf-8')
  res.setHeader('content-length', Buffer.byteLength(text))
  if (method === 'HEAD') res.end()
  else res.end(text)
}
