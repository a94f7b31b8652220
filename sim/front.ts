/**
 * The simulator's one port, for HTTP/1.1 and for cleartext HTTP/2 with prior knowledge (h2c),
 * told apart by the first bytes a client sends: HTTP/2's connection preface begins "PRI", no
 * HTTP/1.1 method does. A gateway backend with `http2: true` then carries many streams over a
 * few connections, which is how the chat bench holds 10,000 idle streams under this machine's
 * limit of 20,000 open files a process (one per stream would need a second socket each).
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createServer as createH2Server, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2'
import { createServer as createNetServer, type Server, type Socket } from 'node:net'

type Handler = (req: IncomingMessage, res: ServerResponse) => void

export interface SimFront {
  /** The listening server; the protocols' servers only receive its connections. */
  readonly server: Server
  /** Ends every connection now, HTTP/2 sessions with theirs. */
  closeAll(): void
}

const prefaceStart = Buffer.from('PRI')

export function simFront(handler: Handler): SimFront {
  const h1 = createHttpServer(handler)
  // Longer than a gateway pool's idle timeout, so the pool, not the server, closes idle
  // connections; otherwise a reused connection can be closed under a request in flight.
  h1.keepAliveTimeout = 65_000
  h1.headersTimeout = 66_000
  // The compatibility API has every member the simulator's handlers use (headers, method, url,
  // complete, resume, destroy, on/off; writeHead, write, end, flushHeaders, headersSent,
  // writableEnded, writableFinished); `res.destroyed` reads undefined there, and a stream that
  // ends early closes its response, which the handlers' 'close' listeners already heed.
  const h2 = createH2Server(
    { maxSessionMemory: 256, settings: { maxConcurrentStreams: 100_000 } },
    handler as unknown as (req: Http2ServerRequest, res: Http2ServerResponse) => void,
  )
  const sockets = new Set<Socket>()
  // node:http's own default, which a server that does not listen itself does not apply.
  const server = createNetServer({ noDelay: true }, (socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
    // Until a protocol's server takes the socket, a reset would otherwise be an unhandled error.
    const early = (): void => void socket.destroy()
    socket.on('error', early)
    let seen: Buffer = Buffer.alloc(0)
    const firstBytes = (chunk: Buffer): void => {
      seen = seen.length === 0 ? chunk : Buffer.concat([seen, chunk])
      if (seen.length < prefaceStart.length) return
      socket.off('data', firstBytes)
      socket.off('error', early)
      socket.pause()
      socket.unshift(seen)
      if (seen.subarray(0, prefaceStart.length).equals(prefaceStart)) {
        // The HTTP/2 session reads what was put back itself; resuming here would drop it.
        h2.emit('connection', socket)
      } else {
        h1.emit('connection', socket)
        socket.resume()
      }
    }
    socket.on('data', firstBytes)
  })
  return {
    server,
    closeAll() {
      for (const socket of sockets) socket.destroy()
    },
  }
}
