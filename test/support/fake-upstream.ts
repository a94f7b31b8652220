/** A scripted model server on a loopback port, for adapter tests that need exact bytes. */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export type Handler = (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void

export interface FakeUpstream {
  url: string
  /** Requests received: path and parsed body. */
  received: { path: string; body: unknown; headers: http.IncomingHttpHeaders }[]
  handle(handler: Handler): void
  close(): Promise<void>
}

export async function startFakeUpstream(): Promise<FakeUpstream> {
  let handler: Handler = (_req, _body, res) => res.writeHead(500).end()
  const received: FakeUpstream['received'] = []
  const server = http.createServer((req, res) => {
    let body = ''
    // Decoded across chunks: a character whose bytes two chunks share stays whole.
    req.setEncoding('utf8')
    req.on('data', (c: string) => (body += c))
    req.on('end', () => {
      let parsed: unknown = body
      try {
        parsed = JSON.parse(body)
      } catch {
        // not JSON: kept as text
      }
      received.push({ path: req.url ?? '', body: parsed, headers: req.headers })
      handler(req, body, res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    handle: (h) => void (handler = h),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export function sse(res: http.ServerResponse, events: (object | string)[], end = true): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  const text = events.map((e) => `data: ${typeof e === 'string' ? e : JSON.stringify(e)}\n\n`).join('')
  // A cut stream: the events are flushed to the socket, then the connection is destroyed.
  if (end) res.end(text)
  else res.write(text, () => res.destroy())
}
