/**
 * The pipeline routes of a generation as a table that the node:http handler consults before
 * Koa: a route found here is served without Koa's context (services/routing/serve-route.ts).
 * It is made once, when the generation's routes are mounted, and matches as @koa/router 15
 * (path-to-regexp 8, default options) matches the same routes on the same generation:
 * - the path is the request target up to the first `?`, undecoded (Koa's `ctx.path`);
 * - text is compared without regard to case, and one trailing slash is allowed;
 * - `:name` is one segment of at least one character; `*name` (the loader's `:name+`) is the
 *   rest of the path, slashes (and a trailing slash) included; values are percent-decoded, a
 *   value that cannot be decoded is kept as it came;
 * - a GET route answers HEAD too, and when two routes match, the one mounted first wins.
 * Whatever this table cannot be sure of is left to Koa, which answers exactly as before: a method
 * or path that no route here serves (404, 405, CORS preflights), a target that Koa's URL parser
 * would read differently (`#`, spaces, anything outside printable ASCII, an absolute URL), and a
 * route whose path uses other syntax than text, `:name` and a final `*name` (it, and every route
 * mounted after it, so that the first-mounted rule still holds).
 */
import type { LoadedRoute } from '../../run/route.js'

export interface RouteMatch {
  readonly route: LoadedRoute
  readonly path: string
  readonly querystring: string
  readonly params: Record<string, string>
}

type Segment = { readonly text: string } | { readonly param: string }

interface Pattern {
  readonly order: number
  readonly route: LoadedRoute
  readonly segments: readonly Segment[]
  /** The final `*name`, when there is one. */
  readonly rest?: string
}

interface MethodRoutes {
  /** Routes without parameters, by their lower-case path. */
  readonly exact: Map<string, { readonly order: number; readonly route: LoadedRoute }>
  /** Routes with parameters, in the order they were mounted. */
  readonly patterns: Pattern[]
}

const TEXT = /^[A-Za-z0-9._~-]+$/
const PARAM = /^:([A-Za-z_][A-Za-z0-9_]*)$/
const REST = /^\*([A-Za-z_][A-Za-z0-9_]*)$/

/** A route path in the router's syntax as segments, or undefined when it uses any other syntax. */
function parsePath(path: string): { segments: Segment[]; rest?: string } | undefined {
  if (!path.startsWith('/')) return undefined
  const parts = path.slice(1).split('/')
  const segments: Segment[] = []
  const names = new Set<string>()
  for (const [i, part] of parts.entries()) {
    const last = i === parts.length - 1
    const param = PARAM.exec(part)?.[1]
    const rest = last ? REST.exec(part)?.[1] : undefined
    const name = param ?? rest
    if (name !== undefined) {
      if (names.has(name)) return undefined
      names.add(name)
    }
    if (rest !== undefined) return { segments, rest }
    if (param !== undefined) segments.push({ param })
    else if (TEXT.test(part) || (last && part === '' && names.size === 0)) segments.push({ text: part.toLowerCase() })
    else return undefined
  }
  return { segments }
}

/** As @koa/router's safeDecodeURIComponent. */
function decode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** The pattern's parameters when `path` (and its lower-case form) matches it. */
function matchPattern(p: Pattern, path: string, lower: string): Record<string, string> | undefined {
  const params: Record<string, string> = {}
  let pos = 1
  for (let i = 0; i < p.segments.length; i++) {
    const seg = p.segments[i]!
    const slash = path.indexOf('/', pos)
    const end = slash < 0 ? path.length : slash
    if (end === pos) return undefined
    if ('text' in seg) {
      if (end - pos !== seg.text.length || !lower.startsWith(seg.text, pos)) return undefined
    } else params[seg.param] = decode(path.slice(pos, end))
    if (i < p.segments.length - 1 || p.rest !== undefined) {
      if (slash < 0) return undefined
      pos = slash + 1
    } else if (slash >= 0 && slash !== path.length - 1) return undefined
  }
  if (p.rest !== undefined) {
    if (pos >= path.length) return undefined
    params[p.rest] = decode(path.slice(pos))
  }
  return params
}

export class RouteTable {
  private readonly methods = new Map<string, MethodRoutes>()

  /** `routes` in the order they are mounted on the router. */
  constructor(routes: Iterable<LoadedRoute>) {
    let order = 0
    for (const route of routes) {
      if (route.internal || !route.method || route.path === undefined) continue
      const parsed = parsePath(route.path)
      if (!parsed) break
      const methods = route.method === 'GET' ? ['HEAD', 'GET'] : [route.method]
      for (const method of methods) {
        let table = this.methods.get(method)
        if (!table) this.methods.set(method, (table = { exact: new Map(), patterns: [] }))
        const simple = parsed.rest === undefined && parsed.segments.every((s) => 'text' in s)
        if (simple && !table.exact.has(route.path.toLowerCase())) table.exact.set(route.path.toLowerCase(), { order, route })
        else if (!simple) table.patterns.push({ order, route, segments: parsed.segments, rest: parsed.rest })
      }
      order++
    }
  }

  /** The route that serves `method` on the request target `url`, or undefined to leave it to Koa. */
  match(method: string, url: string): RouteMatch | undefined {
    const table = this.methods.get(method)
    if (!table || url.charCodeAt(0) !== 0x2f) return undefined
    let query = -1
    for (let i = 1; i < url.length; i++) {
      const c = url.charCodeAt(i)
      if (c === 0x3f) query = query < 0 ? i : query
      else if (c <= 0x20 || c >= 0x7f || c === 0x23) return undefined
    }
    const path = query < 0 ? url : url.slice(0, query)
    const querystring = query < 0 ? '' : url.slice(query + 1)
    const lower = path.toLowerCase()
    let found = table.exact.get(lower)
    if (lower.length > 1 && lower.endsWith('/')) {
      const trimmed = table.exact.get(lower.slice(0, -1))
      if (trimmed && (!found || trimmed.order < found.order)) found = trimmed
    }
    for (const p of table.patterns) {
      if (found && p.order > found.order) break
      const params = matchPattern(p, path, lower)
      if (params) return { route: p.route, path, querystring, params }
    }
    return found && { route: found.route, path, querystring, params: {} }
  }
}
