/**
 * The route table that serves pipeline routes without Koa (kernel/services/routing) against
 * @koa/router, which serves them otherwise: for the shipped pipelines' routes and a few more,
 * over fixed and generated request targets (case, trailing slashes, percent-encoding, empty
 * segments, query strings), the table picks the route the router runs, with the same decoded
 * parameters, answers every target the router would route, and answers nothing else. A route
 * path in syntax the table does not model leaves it, and every route mounted after it, to Koa.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { load } from 'js-yaml'
import Router from '@koa/router'
import { RouteTable } from '../../kernel/transports/routing/route-table.js'
import type { LoadedRoute } from '../../kernel/run/route.js'
import { defaultConfigDir, defaultPipelinesDir } from '../../kernel/contract/paths.js'

const test = suite('kernel: route table against @koa/router')

interface Spec {
  id: string
  method: string
  path: string
}

/** The shipped pipelines' HTTP routes, in mounting order, in the router's syntax (as the loader writes them). */
function shippedRoutes(): Spec[] {
  const server = load(fs.readFileSync(path.join(defaultConfigDir, 'server.yaml'), 'utf8')) as { pipelines: string[] }
  const out: Spec[] = []
  for (const file of server.pipelines) {
    const doc = load(fs.readFileSync(path.join(defaultPipelinesDir, file), 'utf8')) as { prefix?: string; routes: { id: string; http?: string }[] }
    for (const r of doc.routes) {
      if (!r.http) continue
      const [method, p] = r.http.split(' ') as [string, string]
      out.push({ id: r.id, method, path: (doc.prefix ?? '') + p.replace(/:([A-Za-z_][A-Za-z0-9_]*)\+/g, '*$1') })
    }
  }
  return out
}

const extra: Spec[] = [
  { id: 'shadow-param', method: 'GET', path: '/x/shadow/:id' },
  { id: 'shadow-text', method: 'GET', path: '/x/shadow/fixed' },
  { id: 'dir', method: 'GET', path: '/x/dir' },
  { id: 'dir-slash', method: 'GET', path: '/x/dir/' },
  { id: 'mixed', method: 'POST', path: '/x/Mixed/Case.json' },
  { id: 'two', method: 'PATCH', path: '/x/:a/and/:b' },
  { id: 'rest-after-param', method: 'PUT', path: '/x/:a/files/*rest' },
  { id: 'root-rest', method: 'DELETE', path: '/*all' },
]

const asRoute = (s: Spec) => ({ info: { id: s.id }, method: s.method, path: s.path, internal: false }) as unknown as LoadedRoute

type Hit = { id: string; params: Record<string, string> } | undefined

function router(specs: Spec[]): (method: string, url: string) => Promise<Hit> {
  const r = new Router()
  for (const s of specs) r.register(s.path, [s.method], (ctx) => void (ctx.state.hit = { id: s.id, params: { ...ctx.params } }))
  const dispatch = r.routes()
  return async (method, url) => {
    const q = url.indexOf('?')
    const ctx = { method, path: q < 0 ? url : url.slice(0, q), request: {}, state: {} as { hit?: Hit } }
    await dispatch(ctx as unknown as Parameters<typeof dispatch>[0], async () => {})
    return ctx.state.hit
  }
}

function table(specs: Spec[]): (method: string, url: string) => Hit {
  const t = new RouteTable(specs.map(asRoute))
  return (method, url) => {
    const m = t.match(method, url)
    return m && { id: m.route.info.id, params: m.params }
  }
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

test('fixed targets: the same route and parameters as the router', async () => {
  const specs = [...shippedRoutes(), ...extra]
  const viaRouter = router(specs)
  const viaTable = table(specs)
  const cases: [string, string, Hit][] = [
    ['POST', '/v1/chat/completions', { id: 'chat', params: {} }],
    ['POST', '/V1/Chat/Completions/', { id: 'chat', params: {} }],
    ['POST', '/v1/chat/completions?x=1#no', undefined],
    ['POST', '/v1/chat/completions//', undefined],
    ['POST', '/v1/chat%2Fcompletions', undefined],
    ['GET', '/v1/models/a%2Fb', { id: 'models-retrieve', params: { id: 'a/b' } }],
    ['GET', '/v1/models/org/name/', { id: 'models-retrieve', params: { id: 'org/name/' } }],
    ['GET', '/v1/models//', { id: 'models-retrieve', params: { id: '/' } }],
    ['GET', '/v1/models/%ZZ', { id: 'models-retrieve', params: { id: '%ZZ' } }],
    ['HEAD', '/v1/models/%E2%9C%93?x', { id: 'models-retrieve', params: { id: '✓' } }],
    ['POST', '/admin/keys/k1/rotate/', { id: 'admin-keys-rotate', params: { id: 'k1' } }],
    ['POST', '/admin/keys//rotate', undefined],
    ['PUT', '/knowledge/v1/projects/p/collections/c/documents/a/b.md', { id: 'knowledge-documents-put', params: { project: 'p', collection: 'c', source_name: 'a/b.md' } }],
    ['GET', '/x/shadow/fixed', { id: 'shadow-param', params: { id: 'fixed' } }],
    ['GET', '/x/dir/', { id: 'dir', params: {} }],
    ['GET', '/x/dir//', { id: 'dir-slash', params: {} }],
    ['POST', '/x/mixed/case.JSON', { id: 'mixed', params: {} }],
    ['DELETE', '/anything/at/all', { id: 'root-rest', params: { all: 'anything/at/all' } }],
    ['PUT', '/x/a/files/', undefined],
  ]
  for (const [method, url, expected] of cases) {
    const fromRouter = await viaRouter(method, url.replace(/#.*/, ''))
    const fromTable = viaTable(method, url)
    if (url.includes('#')) assert.is(fromTable, undefined, `${url}: left to Koa`)
    else {
      assert.equal(fromRouter?.id, expected?.id, `router ${method} ${url}`)
      assert.equal(fromTable, fromRouter, `table ${method} ${url}`)
      if (expected) assert.equal(fromTable, expected, `${method} ${url}`)
    }
  }
})

test('generated targets: the table answers exactly where the router routes, the same way', async () => {
  const specs = [...shippedRoutes(), ...extra]
  const viaRouter = router(specs)
  const viaTable = table(specs)
  const words = [...new Set(specs.flatMap((s) => s.path.split('/')).filter((w) => /^[a-z0-9._-]+$/i.test(w)))]
  const values = ['a', 'A%2Fb', '%ZZ', 'x.y', '~', '-', '', '%E2%9C%93', '%2e%2e', 'a%20b', "it's", '(x)']
  let seed = 18
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n
  }
  const flip = (w: string) => (rand(4) === 0 ? w.toUpperCase() : w)
  let routed = 0
  for (let i = 0; i < 6000; i++) {
    const parts = Array.from({ length: 1 + rand(6) }, () => (rand(3) === 0 ? values[rand(values.length)]! : flip(words[rand(words.length)]!)))
    const url = '/' + parts.join('/') + ['', '/', '//', '?q=1&x', '/?a'][rand(5)]!
    const method = METHODS[rand(METHODS.length)]!
    const fromRouter = await viaRouter(method, url)
    assert.equal(viaTable(method, url), fromRouter, `${method} ${url}`)
    if (fromRouter) routed++
  }
  assert.ok(routed > 300, `the generated targets reach routes (${routed})`)
})

test('a route path in other syntax leaves it, and the routes mounted after it, to Koa', () => {
  const specs: Spec[] = [
    { id: 'before', method: 'GET', path: '/a/:id' },
    { id: 'other', method: 'GET', path: '/b/:x-:y' },
    { id: 'after', method: 'POST', path: '/c' },
  ]
  const viaTable = table(specs)
  assert.equal(viaTable('GET', '/a/1'), { id: 'before', params: { id: '1' } })
  assert.is(viaTable('GET', '/b/1-2'), undefined)
  assert.is(viaTable('POST', '/c'), undefined)
  assert.is(viaTable('OPTIONS', '/a/1'), undefined, 'preflights are Koa\'s')
  assert.is(viaTable('GET', 'http://host/a/1'), undefined, 'an absolute target is Koa\'s')
})

test.run()
