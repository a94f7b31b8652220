/**
 * Whole replies written without Koa (kernel/services/replies/end-whole.ts) against Koa writing
 * them: a Koa app that sets `ctx.status`, `ctx.type` and `ctx.body` as the kernel did before its
 * routes left Koa, and a node:http server that calls `endWhole`, answer the same raw requests
 * with the same bytes (the date aside): content types with and without the charset `mime-types`
 * adds, a type Koa cannot name (it picks one from the body), statuses without a body, HEAD,
 * multi-byte text, a header a step set before. And the CORS `Vary` of a route's reply
 * (`applyCors`) against Koa's `ctx.vary`, with the values a preflight may have set before it.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import http from 'node:http'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import Koa from 'koa'
import { endWhole } from '../../kernel/transports/replies/end-whole.js'
import { applyCors } from '../../kernel/transports/cors/cors.js'
import { corsPolicy } from '../../protocols/http/cors.js'
import { rawHttp as raw } from '../support/raw-http.js'

const test = suite('kernel: whole replies written as Koa wrote them')

interface Case {
  status: number
  type: string
  body: string | Buffer
  /** Headers set before the reply (a step's `ex.headers`, an error's own). */
  before?: Record<string, string>
}

const cases: Case[] = [
  { status: 200, type: 'text/plain', body: 'plain' },
  { status: 200, type: 'text/vtt; charset=utf-8', body: 'WEBVTT\n\n✓ multi-byte' },
  { status: 201, type: 'text/xml', body: '<soap:Envelope/>' },
  { status: 500, type: 'text/xml; charset=utf-8', body: '<fault/>' },
  { status: 429, type: 'application/json', body: '{"error":{}}', before: { 'retry-after': '7' } },
  { status: 200, type: 'nonsense', body: '  <p>html by its look</p>' },
  { status: 200, type: '', body: 'text by its look' },
  { status: 200, type: 'nonsense', body: Buffer.from([1, 2, 3]) },
  { status: 200, type: 'audio/wav', body: Buffer.from('RIFF') },
  { status: 200, type: 'audio/L16;rate=24000', body: Buffer.alloc(0) },
  {
    status: 200,
    type: 'text/html; charset=utf-8',
    body: '<html></html>',
    before: { 'content-type': 'application/x-ignored', 'cache-control': 'no-cache' },
  },
  { status: 204, type: 'text/plain', body: 'dropped', before: { 'x-kept': 'yes' } },
  { status: 205, type: 'text/plain', body: 'dropped' },
  { status: 304, type: 'audio/wav', body: Buffer.from('dropped') },
  { status: 418, type: 'text/plain', body: 'short and stout' },
  { status: 599, type: 'text/plain', body: 'a status Node has no phrase for' },
]

const caseOf = (url: string | undefined) => cases[Number((url ?? '/0').slice(1))]!

let koaServer: http.Server
let plainServer: http.Server

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

let koaPort = 0
let plainPort = 0

test.before(async () => {
  const app = new Koa()
  app.use(async (ctx) => {
    const c = caseOf(ctx.url)
    for (const [k, v] of Object.entries(c.before ?? {})) ctx.set(k, v)
    ctx.status = c.status
    ctx.type = c.type
    ctx.body = c.body
  })
  koaServer = http.createServer(app.callback())
  plainServer = http.createServer((req, res) => {
    const c = caseOf(req.url)
    for (const [k, v] of Object.entries(c.before ?? {})) res.setHeader(k, v)
    endWhole(res, req.method, c.status, c.type, c.body)
  })
  ;[koaPort, plainPort] = await Promise.all([listen(koaServer), listen(plainServer)])
})
test.after(async () => {
  await Promise.all([koaServer, plainServer].map((s) => new Promise((resolve) => s.close(resolve))))
})

const normal = (response: string) => response.replace(/^date: .*$/im, 'date: -')

test('every case, GET and HEAD: the same bytes as Koa', async () => {
  for (const [i] of cases.entries()) {
    for (const method of ['GET', 'HEAD']) {
      const request = `${method} /${i} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`
      const [koa, plain] = await Promise.all([raw(koaPort, request), raw(plainPort, request)])
      assert.ok(koa.startsWith('HTTP/1.1 '), `case ${i} answered`)
      assert.fixture(normal(plain), normal(koa))
    }
  }
})

test("a route reply's Vary: the same as Koa's ctx.vary, over what a preflight may have set", () => {
  const policy = corsPolicy({ origins: ['http://localhost:*'], credentials: false, max_age: 600 })
  for (const before of [
    undefined,
    '',
    'origin',
    'Origin',
    'accept-encoding',
    'access-control-request-method, access-control-request-headers',
    '*',
    'a, *',
  ]) {
    const koa = new Koa()
    const req = new http.IncomingMessage(new net.Socket())
    const viaKoa = new http.ServerResponse(req)
    const ctx = koa.createContext(req, viaKoa)
    const viaCors = new http.ServerResponse(req)
    if (before !== undefined) {
      viaKoa.setHeader('Vary', before)
      viaCors.setHeader('Vary', before)
    }
    ctx.vary('origin')
    applyCors(policy, req, viaCors)
    assert.is(viaCors.getHeader('vary'), viaKoa.getHeader('vary'), `Vary before: ${before}`)
  }
})

test.run()
