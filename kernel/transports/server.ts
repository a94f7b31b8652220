/**
 * The Koa server, for what the route table (services/routing) leaves to it: a request id on
 * every response, dispatch to the current generation's router, 404 "unknown endpoint" for the
 * rest, and a last-resort boundary that leaks nothing.
 */
import Koa from 'koa'
import type { Generation } from '../run/generation.js'
import { GatewayError } from '../contract/errors.js'
import type { Logger } from '../contract/log.js'
import { mountPreflights } from './cors/cors.js'
import { RouteTable } from './routing/route-table.js'
import { beginRequest, lastResortError, serveRoute } from './routing/serve-route.js'

export interface GenerationHolder {
  current(): Generation
}

/** Registers every HTTP route of a generation on its router and in its route table, in the same order. */
export function mountRoutes(gen: Generation, log: Logger): void {
  for (const route of gen.routes.values()) {
    if (route.internal || !route.method || route.path === undefined) continue
    gen.router.register(route.path, [route.method], (ctx) => {
      ctx.respond = false
      const target = { requestId: ctx.state.requestId as string, path: ctx.path, querystring: ctx.querystring, params: ctx.params as Record<string, string> }
      return serveRoute(gen, route, ctx.req, ctx.res, target, log)
    })
  }
  mountPreflights(gen.router, gen.routes.values())
  gen.dispatch = gen.router.routes() as Koa.Middleware
  gen.routeTable = new RouteTable(gen.routes.values())
}

export function createApp(holder: GenerationHolder, log: Logger): Koa {
  const app = new Koa()
  app.proxy = false
  app.silent = true
  app.use(async (ctx) => {
    const gen = holder.current()
    const requestId = beginRequest(gen, ctx.res)
    ctx.state.requestId = requestId
    try {
      await gen.dispatch!(ctx, async () => {
        const matched = (ctx as unknown as { matched?: unknown[] }).matched
        if (matched && matched.length > 0) throw new GatewayError(405, `method ${ctx.method} not allowed on ${ctx.path}`)
        throw new GatewayError(404, 'unknown endpoint', { code: 'unknown_endpoint' })
      })
    } catch (err) {
      const { error, rendered } = lastResortError(err, requestId, log)
      ctx.status = rendered.status
      for (const [k, v] of Object.entries(error.headers)) ctx.set(k, v)
      ctx.type = rendered.contentType
      ctx.body = rendered.body
    }
  })
  return app
}
