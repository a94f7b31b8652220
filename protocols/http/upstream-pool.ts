/**
 * The keep-alive pool to one model server. Over HTTP/1.1 a request holds its connection; with
 * `http2` (a backend's `http2: true`) a connection carries up to 100 streams at once, negotiated
 * by ALPN over TLS or with prior knowledge (h2c) over http://, so many streams hold few sockets.
 */
import { type buildConnector, type Dispatcher, Pool } from 'undici'

/** Streams an HTTP/2 connection carries at once (the server's own setting may lower it). */
const streamsPerConnection = 100

export function upstreamPool(url: URL, connections: number, http2: boolean): Dispatcher {
  const pool = new Pool(url.origin, {
    connections,
    keepAliveTimeout: 30_000,
    // The request's own deadline governs; these only bound a silent peer.
    headersTimeout: 0,
    bodyTimeout: 0,
    ...(http2 ? multiplexed(url) : { pipelining: 1 }),
  })
  return http2 ? pool.compose(concurrentPosts) : pool
}

/** A connection counts as busy at `pipelining` streams, so the pool opens the next one then. */
function multiplexed(url: URL) {
  // undici 7's connector reads `useH2c` (lib/core/connect.js); its types do not list it yet.
  const h2c: Partial<buildConnector.BuildOptions> & { useH2c: boolean } = { useH2c: true }
  return {
    allowH2: true,
    maxConcurrentStreams: streamsPerConnection,
    pipelining: streamsPerConnection,
    ...(url.protocol === 'http:' ? { connect: h2c } : {}),
  }
}

/**
 * undici holds a POST until its connection has nothing else running (it could not be retried
 * beside others), which on HTTP/2 would carry one stream a connection. Marked idempotent, POSTs
 * share the connection; the gateway retries by its own rules (backends/retry.ts), not undici's.
 */
const concurrentPosts: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (options, handler) =>
  dispatch({ ...options, idempotent: true }, handler)
