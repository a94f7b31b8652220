/**
 * The baseline of the performance budget: a bare node:http reverse proxy with a keep-alive
 * agent, which pipes bytes both ways and parses nothing. Run as a child process by bench/chat.
 *   node dist/bench/proxy.js --upstream http://127.0.0.1:PORT
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

const upstream = new URL(process.argv[process.argv.indexOf('--upstream') + 1] ?? 'http://127.0.0.1:8000')
const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 })

const server = http.createServer((req, res) => {
  const out = http.request(
    { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers)
      up.pipe(res)
    },
  )
  out.on('error', () => res.destroy())
  req.pipe(out)
})
server.keepAliveTimeout = 65_000
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`READY http://127.0.0.1:${(server.address() as AddressInfo).port}\n`)
})
