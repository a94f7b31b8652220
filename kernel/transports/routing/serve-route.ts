/**
 * Serving a pipeline route over HTTP, with or without Koa in front. The node:http handler looks
 * the request up in the current generation's route table and serves what it finds itself: the
 * request id header, the generation's in-flight count, CORS and the transport, on the request
 * and response as Node hands them over. Koa's per-request context (three objects, its
 * `on-finished` listeners, the router's matching and koa-compose) cost ~5 % of a chat request's
 * CPU and ~9 % of its allocation for nothing a route uses. Everything else goes to the Koa app
 * as before: unknown endpoints, 405, preflights, and whatever the table leaves to the router.
 */
import crypto from 'node:crypto'
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import type { Generation } from '../../run/generation.js'
import type { LoadedRoute } from '../../run/route.js'
import { serveHttp, type HttpTarget } from '../http.js'
import { toGatewayError, type GatewayError } from '../../contract/errors.js'
import { defaultErrorStyle, type RenderedError } from '../../run/error-styles.js'
import { describeCause, type Logger } from '../../contract/log.js'
import { applyCors } from '../cors/cors.js'
import { endWhole } from '../replies/end-whole.js'

/**
 * Every request, served here or by Koa: its id (in the response's header, returned), and its
 * place in the generation's in-flight count until the response closes.
 */
export function beginRequest(gen: Generation, res: ServerResponse): string {
  const requestId = crypto.randomUUID()
  res.setHeader(`${gen.config.server.header_prefix}request-id`, requestId)
  res.once('close', gen.enter())
  return requestId
}

/** The last-resort boundary, here and in Koa's app: an internal error logged, the error in the default style. */
export function lastResortError(err: unknown, requestId: string, log: Logger): { error: GatewayError; rendered: RenderedError } {
  const error = toGatewayError(err)
  if (error.code === 'internal') log.error('request failed', { req: requestId, cause: describeCause(error.cause ?? error) })
  return { error, rendered: defaultErrorStyle(error) }
}

/** CORS, then the route; an error that escapes the transport becomes a 500 that leaks nothing. */
export async function serveRoute(gen: Generation, route: LoadedRoute, req: IncomingMessage, res: ServerResponse, target: HttpTarget, log: Logger): Promise<void> {
  try {
    if (route.cors) applyCors(route.cors, req, res)
    await serveHttp(gen, route, req, res, target)
  } catch (err) {
    const { error, rendered } = lastResortError(err, target.requestId, log)
    // Once the headers are out there is no other reply to give (Koa ignored its setters then too).
    if (res.headersSent) return void res.end()
    for (const [k, v] of Object.entries(error.headers)) res.setHeader(k, v)
    endWhole(res, req.method, rendered.status, rendered.contentType, rendered.body)
  }
}

/** The node:http handler: a route of the current generation's table directly, anything else through `koa`. */
export function serveRoutes(current: () => Generation, log: Logger, koa: RequestListener): RequestListener {
  return (req, res) => {
    const gen = current()
    const found = gen.routeTable?.match(req.method!, req.url!)
    if (!found) return koa(req, res)
    const requestId = beginRequest(gen, res)
    void serveRoute(gen, found.route, req, res, { requestId, path: found.path, querystring: found.querystring, params: found.params }, log)
  }
}
