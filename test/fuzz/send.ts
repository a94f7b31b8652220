/**
 * Sends one raw request over a keep-alive loopback connection and reads the whole answer, with a
 * time limit: node:http rather than fetch, so that any bytes, any method and any path go out as
 * made. An answer that arrives before the body was all written counts (the gateway may refuse a
 * body early); a connection that closes with no answer does not.
 */
import http from 'node:http'
import type { Answer } from './judge.js'

export interface RawRequest {
  method: string
  path: string
  headers: Record<string, string>
  body?: Buffer
}

export function sendRaw(agent: http.Agent, base: URL, req: RawRequest, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let answered = false
    const r = http.request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        method: req.method,
        path: req.path,
        headers: { ...req.headers, 'content-length': String(req.body?.length ?? 0) },
      },
      (res) => {
        answered = true
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          clearTimeout(timer)
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) })
        })
        res.on('error', (err) => {
          clearTimeout(timer)
          reject(err)
        })
      },
    )
    const timer = setTimeout(() => r.destroy(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs)
    r.on('error', (err) => {
      // A write cut short after the answer came (the gateway refused the body early) is not an error.
      if (
        answered &&
        (err as NodeJS.ErrnoException).code !== undefined &&
        /EPIPE|ECONNRESET/.test((err as NodeJS.ErrnoException).code!)
      )
        return
      clearTimeout(timer)
      reject(err)
    })
    r.end(req.body)
  })
}
