/**
 * The one front door: a Koa app whose one middleware answers every HTTP request. It gives the
 * response its request id and counts the request in its generation until the response closes,
 * routes it with the generation's @koa/router, and answers what no route serves: 404 "unknown
 * endpoint", 405, CORS preflights (OPTIONS routes of the same router), and a last-resort 500
 * that leaks nothing. A pipeline route writes its reply to Node's response itself
 * (`ctx.respond = false`, transports/http.ts).
 *
 * What Koa's way of routing costs a request is won back inside it (docs/decisions.md, "One
 * front door: Koa"): the router is built once per generation and a path is matched once, not
 * once a request (the router's match for a path is remembered), and the route's handler is
 * called directly, without the chain that `router.routes()` composes for every request.
 */
import crypto from 'node:crypto'
import Koa from 'koa'
import Router, { type RouterContext, type RouterMiddleware } from '@koa/router'
import type { Generation } from '../run/generation.js'
import type { LoadedRoute } from '../run/route.js'
import { GatewayError, toGatewayError } from '../contract/errors.js'
import { describeCause, type Logger } from '../contract/log.js'
import { defaultErrorStyle, type ErrorStyle } from './error-styles.js'
import { applyCors, mountPreflights } from './cors/cors.js'
import { serveHttp } from './http.js'

export interface GenerationHolder {
  current(): Generation
}

interface Hit {
  readonly handler: RouterMiddleware
  readonly params: Record<string, string>
}

/** What a route's handler is given as `next`: nothing comes after a route. */
const nothing = (): Promise<void> => Promise.resolve()

/** Paths whose match is remembered, per method; past it the memory starts again (a bound, not a cache policy). */
const REMEMBERED = 1024

/** A generation's HTTP routes and their CORS preflights on one @koa/router, made when its routes are mounted. */
export class HttpRoutes {
  /** The response header that carries the request id (with the deployment's prefix). */
  readonly idHeader: string
  private readonly router = new Router()
  private readonly seen = new Map<string, Map<string, Hit>>()
  /** Pipeline prefixes with their error style, longest first: what a 404 or 405 under one looks like. */
  private readonly prefixes: { readonly prefix: string; readonly errors: ErrorStyle }[] = []

  constructor(gen: Generation) {
    this.idHeader = `${gen.config.server.header_prefix}request-id`
    for (const route of gen.routes.values()) {
      const prefix = route.prefix ?? ''
      if (prefix !== '' && !route.internal && !this.prefixes.some((p) => p.prefix === prefix))
        this.prefixes.push({ prefix, errors: route.errors })
    }
    this.prefixes.sort((a, b) => b.prefix.length - a.prefix.length)
    for (const route of gen.routes.values()) {
      if (route.internal || !route.method || route.path === undefined) continue
      this.router.register(route.path, [route.method], (ctx) => serveRoute(gen, route, ctx))
    }
    mountPreflights(this.router, gen.routes.values())
  }

  /** The error style of the pipeline whose prefix holds `path` (the first mounted of the longest), else the default. */
  errorsFor(path: string): ErrorStyle {
    return this.prefixes.find((p) => path === p.prefix || path.startsWith(`${p.prefix}/`))?.errors ?? defaultErrorStyle
  }

  /** The route that serves `method` on `path`, as the router picks it (the first mounted); a 404 or 405 when none does. */
  match(method: string, path: string): Hit {
    let paths = this.seen.get(method)
    const known = paths?.get(path)
    if (known) return known
    const found = this.router.match(path, method)
    const layer = found.pathAndMethod.find((l) => l.methods.length > 0)
    if (!layer) {
      if (found.path.length > 0) throw new GatewayError(405, `method ${method} not allowed on ${path}`)
      throw new GatewayError(404, 'unknown endpoint', { code: 'unknown_endpoint' })
    }
    const hit: Hit = { handler: layer.stack[0]!, params: Object.freeze(layer.params(path, layer.captures(path), {})) }
    // Parameters are part of the path, so they are remembered with it.
    if (!paths) this.seen.set(method, (paths = new Map()))
    if (paths.size >= REMEMBERED) paths.clear()
    paths.set(path, hit)
    return hit
  }
}

/** Each generation's HTTP routes, mounted once, before it serves. */
const mounted = new WeakMap<Generation, HttpRoutes>()

export function mountRoutes(gen: Generation): void {
  mounted.set(gen, new HttpRoutes(gen))
}

/** CORS, then the route through the lifecycle, its reply written by the transport. */
function serveRoute(gen: Generation, route: LoadedRoute, ctx: RouterContext): Promise<void> {
  ctx.respond = false
  if (route.cors) applyCors(route.cors, ctx.req, ctx.res)
  return serveHttp(gen, route, ctx, ctx.state.requestId as string)
}

export function createApp(holder: GenerationHolder, log: Logger): Koa {
  const app = new Koa()
  app.proxy = false
  app.silent = true
  app.use(async function frontDoor(ctx: RouterContext) {
    const gen = holder.current()
    const routes = mounted.get(gen)!
    const requestId = crypto.randomUUID()
    ctx.state.requestId = requestId
    ctx.res.setHeader(routes.idHeader, requestId)
    ctx.res.once('close', gen.enter())
    try {
      const hit = routes.match(ctx.req.method!, ctx.path)
      ctx.params = hit.params
      await hit.handler(ctx, nothing)
    } catch (err) {
      lastResort(ctx, err, requestId, log, routes.errorsFor(ctx.path))
    }
  })
  return app
}

/**
 * The last-resort boundary: an internal error logged with the request id; the error (a 404 or
 * 405 of the router, mostly) in the style of the pipeline whose prefix holds the path.
 */
function lastResort(ctx: RouterContext, err: unknown, requestId: string, log: Logger, style: ErrorStyle): void {
  const error = toGatewayError(err)
  if (error.code === 'internal')
    log.error('request failed', { req: requestId, cause: describeCause(error.cause ?? error) })
  // Once the headers are out there is no other reply to give.
  if (ctx.res.headersSent) return void ctx.res.end()
  const rendered = style(error)
  ctx.respond = true
  ctx.status = rendered.status
  ctx.set(error.headers)
  ctx.type = rendered.contentType
  ctx.body = rendered.body
}
