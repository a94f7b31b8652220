/**
 * A SearXNG-compatible search engine on 127.0.0.1 for tests: `GET /search?q=...&format=json`
 * answers SearXNG's JSON shape and counts its hits, keeping each query it was sent. The query
 * `fail` gets a 500, `slow` an answer after `slowMs`.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface FakeSearxng {
  url: string
  queries: string[]
  close(): Promise<void>
}

export async function startFakeSearxng(slowMs = 2000): Promise<FakeSearxng> {
  const queries: string[] = []
  const timers = new Set<NodeJS.Timeout>()
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (url.pathname !== '/search' || url.searchParams.get('format') !== 'json') {
      res.writeHead(404).end()
      return
    }
    const q = url.searchParams.get('q') ?? ''
    queries.push(q)
    if (q === 'fail') {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('engine error')
      return
    }
    const body = JSON.stringify({
      query: q,
      number_of_results: 2,
      results: [
        {
          title: 'Lighthouses of the world',
          url: 'https://example.org/lighthouses',
          content: 'Facts about lighthouses from a test engine.',
          engine: 'test',
          score: 2.5,
        },
        {
          title: 'Second result',
          url: 'https://example.org/second',
          content: 'Another snippet.',
          engine: 'test',
          score: 1.0,
        },
      ],
    })
    const send = () => res.writeHead(200, { 'content-type': 'application/json' }).end(body)
    if (q === 'slow') {
      const t = setTimeout(() => {
        timers.delete(t)
        send()
      }, slowMs)
      timers.add(t)
    } else send()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    queries,
    close: () =>
      new Promise((resolve) => {
        for (const t of timers) clearTimeout(t)
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
