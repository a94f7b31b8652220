/**
 * The one front door (Koa with @koa/router, kernel/transports/server.ts) over real sockets, at
 * the edges of routing and of the replies a route writes itself: trailing slashes, case,
 * percent-encoded parameters, a route mounted first shadowing a later one, 405 against 404,
 * HEAD, CORS on a route and its preflight, query strings, text, bytes, streams, events and
 * errors. Then what only a live request shows: a body that breaks off and a client that goes
 * away both end the request (finish phases run, the generation's in-flight count returns to zero).
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { definePlugin, type AnyPlugin } from '../../kernel/contract/plugin.js'
import { reply } from '../../kernel/contract/reply.js'
import { GatewayError } from '../../kernel/contract/errors.js'
import { defaultConfigDir } from '../../kernel/contract/paths.js'
import { startTestGateway, type TestGateway } from '../support/gateway.js'
import { rawHttp as raw } from '../support/raw-http.js'

const test = suite('e2e the front door: routing and the replies routes write')
const emptySchema = { type: 'object', additionalProperties: false, properties: {} } as const
const outcomes: string[] = []

/** A source that waits for more until the client goes, then fails as an upstream call would. */
async function* hang(signal: AbortSignal): AsyncGenerator<Record<string, unknown>> {
  yield { n: 1 }
  await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))
  throw signal.reason
}

const echo = definePlugin({
  name: 'test-echo',
  config: emptySchema,
  setup: () => ({
    async request(ex) {
      const kind = ex.query.get('reply')
      if (kind === 'text') ex.reply = reply.text('text/plain', 'plain ✓')
      else if (kind === 'untyped') ex.reply = reply.text('nonsense', '<p>a type Koa cannot name</p>')
      else if (kind === 'empty') ex.reply = reply.text('text/plain', 'dropped', 204)
      else if (kind === 'bytes') ex.reply = reply.bytes('audio/wav', new Uint8Array([82, 73, 70, 70]))
      else if (kind === 'byte-stream')
        ex.reply = reply.bytes(
          'application/octet-stream',
          (async function* () {
            yield Buffer.from('ab')
            yield Buffer.from('cd')
          })(),
        )
      else if (kind === 'events')
        ex.reply = reply.events(
          (async function* () {
            yield { n: 1 }
            yield { n: 2 }
          })(),
          { terminator: '[DONE]' },
        )
      else if (kind === 'hang') ex.reply = reply.events(hang(ex.signal))
      else if (kind === 'error') throw new GatewayError(429, 'slow down', { headers: { 'retry-after': '7' } })
      else if (kind === 'crash') throw new Error('a cause that stays in the log')
      else if (kind === 'bad-header') {
        ex.headers.set('x-bad', 'a\nb')
        ex.reply = reply.json({ ok: true })
      } else
        ex.reply = reply.json({
          method: ex.method,
          path: ex.path,
          params: ex.params,
          query: [...ex.query],
          body: ex.body ?? null,
        })
    },
    finish(ex, outcome) {
      outcomes.push(`${ex.query.get('tag') ?? ex.path} ${outcome.kind}`)
    },
  }),
})

const PIPELINE = `
pipeline: test-direct
prefix: /t
cors:
  origins: ['http://localhost:*']
  expose_headers: [x-gateway-request-id]
routes:
  - { id: t-items, http: GET /items, steps: [test-echo] }
  - { id: t-item, http: GET /items/:id, steps: [test-echo] }
  - { id: t-item-put, http: PUT /items/:id, steps: [test-echo] }
  - { id: t-parts, http: POST /items/:id/parts/:part, body: json, steps: [test-echo] }
  - { id: t-files, http: GET /files/:path+, steps: [test-echo] }
  - { id: t-dir, http: GET /dir, steps: [test-echo] }
  - { id: t-dir-slash, http: GET /dir/, steps: [test-echo] }
  - { id: t-shadow, http: GET /shadow/:id, steps: [test-echo] }
  - { id: t-shadowed, http: GET /shadow/fixed, steps: [test-echo] }
  - { id: t-mixed, http: GET /Mixed/Case.json, steps: [test-echo] }
`

let gw: TestGateway

test.before(async () => {
  const server = fs
    .readFileSync(path.join(defaultConfigDir, 'server.yaml'), 'utf8')
    .replace(/^pipelines: \[/m, 'pipelines: [test-direct.yaml, ')
  gw = await startTestGateway({
    plugins: [echo as AnyPlugin],
    files: { 'pipelines/test-direct.yaml': PIPELINE, 'config/server.yaml': server },
  })
})
test.after(async () => {
  await gw.close()
})

function request(line: string, headers: Record<string, string> = {}, body = ''): string {
  const all: Record<string, string | number> = { host: 'sluice.test', connection: 'close', ...headers }
  if (body) all['content-length'] = Buffer.byteLength(body)
  return `${line} HTTP/1.1\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n${body}`
}

/** The raw response of the gateway. */
const same = (req: string): Promise<string> => raw(gw.port, req)

const bodyOf = (response: string) => response.slice(response.indexOf('\r\n\r\n') + 4)
const json = (response: string) =>
  JSON.parse(Buffer.from(bodyOf(response), 'latin1').toString('utf8')) as {
    path: string
    params: Record<string, string>
    query: [string, string][]
    method: string
  }
const statusOf = (response: string) => Number(response.split(' ')[1])
const header = (response: string, name: string) => new RegExp(`^${name}: (.*)\\r$`, 'im').exec(response)?.[1]

test('paths: trailing slash, case, percent-encoded parameters, shadowing, query strings', async () => {
  const cases: [string, Partial<{ path: string; params: Record<string, string>; query: [string, string][] }>][] = [
    ['/t/items', { path: '/t/items', params: {} }],
    ['/t/items/', { path: '/t/items/', params: {} }],
    ['/T/ITEMS', { path: '/T/ITEMS', params: {} }],
    ['/t/items/AbC/', { params: { id: 'AbC' } }],
    ['/t/items/a%2Fb', { params: { id: 'a/b' } }],
    ['/t/items/%E2%9C%93', { params: { id: '✓' } }],
    ['/t/items/%ZZ', { params: { id: '%ZZ' } }],
    ['/t/files/a/b%20c/', { params: { path: 'a/b c/' } }],
    ['/t/files/x%2F..%2Fy', { params: { path: 'x/../y' } }],
    ['/t/shadow/fixed', { params: { id: 'fixed' } }],
    ['/t/mixed/case.JSON', { params: {} }],
    [
      '/t/items?x=1&x=2&y=%20&z',
      {
        query: [
          ['x', '1'],
          ['x', '2'],
          ['y', ' '],
          ['z', ''],
        ],
      },
    ],
  ]
  for (const [url, expected] of cases) {
    const res = await same(request(`GET ${url}`))
    assert.is(statusOf(res), 200, url)
    const body = json(res)
    for (const [k, v] of Object.entries(expected)) assert.equal(body[k as keyof typeof body], v, `${url}: ${k}`)
  }
  // /t/dir/ is the first-mounted /t/dir with its trailing slash; /t/dir// is /t/dir/ with one.
  assert.is(json(await same(request('GET /t/dir/?tag=x'))).path, '/t/dir/')
  assert.is(statusOf(await same(request('GET /t/dir//'))), 200)
})

test('404, 405, an encoded static path, a fragment, an absolute target', async () => {
  assert.is(statusOf(await same(request('DELETE /t/items/x'))), 405, 'a known path, another method')
  assert.is(statusOf(await same(request('POST /t/items'))), 405)
  assert.is(statusOf(await same(request('GET /t/nothing'))), 404)
  assert.is(statusOf(await same(request('GET /t/items//x'))), 404)
  assert.is(statusOf(await same(request('GET /t/it%65ms'))), 404, 'a static path is not decoded')
  assert.is(statusOf(await same(request('GET /t/items/x#y'))), 200)
  assert.is(statusOf(await same(request('GET http://sluice.test/t/items'))), 200)
})

test('HEAD on a GET route: the GET headers, content-length included, and no body', async () => {
  assert.is(json(await raw(gw.port, request('GET /t/items/x'))).method, 'GET')
  const head = await same(request('HEAD /t/items/x'))
  assert.is(statusOf(head), 200)
  assert.is(bodyOf(head), '')
  assert.is(header(head, 'content-type'), 'application/json; charset=utf-8')
  // The echo names the method, so a HEAD's JSON is one byte longer than a GET's.
  assert.is(
    header(head, 'content-length'),
    String(
      Buffer.byteLength(
        JSON.stringify({ method: 'HEAD', path: '/t/items/x', params: { id: 'x' }, query: [], body: null }),
      ),
    ),
  )
  for (const kind of ['text', 'bytes', 'error']) {
    const get = await raw(gw.port, request(`GET /t/items/x?reply=${kind}`))
    const head = await same(request(`HEAD /t/items/x?reply=${kind}`))
    assert.is(statusOf(head), statusOf(get), kind)
    assert.is(bodyOf(head), '', kind)
    assert.is(header(head, 'content-length'), String(Buffer.byteLength(bodyOf(get), 'latin1')), kind)
    assert.is(header(head, 'content-type'), header(get, 'content-type'), kind)
  }
})

test('CORS: an allowed origin on a route, a refused one, and the preflight', async () => {
  const origin = { origin: 'http://localhost:5173' }
  const ok = await same(request('GET /t/items', origin))
  assert.is(header(ok, 'access-control-allow-origin'), 'http://localhost:5173')
  assert.is(header(ok, 'access-control-expose-headers'), 'x-gateway-request-id')
  assert.is(header(ok, 'vary'), 'origin')
  const refused = await same(request('GET /t/items', { origin: 'https://evil.example' }))
  assert.is(header(refused, 'access-control-allow-origin'), undefined)
  const error = await same(request('GET /t/items?reply=error', origin))
  assert.is(header(error, 'access-control-allow-origin'), 'http://localhost:5173', 'errors carry them too')
  const preflight = await same(request('OPTIONS /t/items/x', { ...origin, 'access-control-request-method': 'PUT' }))
  assert.is(statusOf(preflight), 204)
  assert.is(header(preflight, 'access-control-allow-methods'), 'GET, PUT')
  assert.is(header(preflight, 'vary'), 'access-control-request-method, access-control-request-headers, origin')
})

test('replies: JSON, text, a type Koa cannot name, 204, bytes, a byte stream, events, errors', async () => {
  const expect: [string, number, string | undefined][] = [
    ['text', 200, 'text/plain; charset=utf-8'],
    ['untyped', 200, 'text/html; charset=utf-8'],
    ['empty', 204, undefined],
    ['bytes', 200, 'audio/wav'],
    ['byte-stream', 200, 'application/octet-stream'],
    ['events', 200, 'text/event-stream; charset=utf-8'],
    ['error', 429, 'application/json; charset=utf-8'],
    ['crash', 500, 'application/json; charset=utf-8'],
    ['bad-header', 500, 'application/json; charset=utf-8'],
  ]
  for (const [kind, status, type] of expect) {
    const res = await same(request(`GET /t/items/x?reply=${kind}`))
    assert.is(statusOf(res), status, kind)
    assert.is(header(res, 'content-type'), type, kind)
  }
  const text = await raw(gw.port, request('GET /t/items/x?reply=text'))
  assert.is(header(text, 'content-length'), '9')
  assert.is(
    bodyOf(await raw(gw.port, request('GET /t/items/x?reply=events'))),
    'data: {"n":1}\n\ndata: {"n":2}\n\ndata: [DONE]\n\n',
  )
  const error = await raw(gw.port, request('GET /t/items/x?reply=error'))
  assert.is(header(error, 'retry-after'), '7')
  assert.not.ok(bodyOf(await raw(gw.port, request('GET /t/items/x?reply=crash'))).includes('stays in the log'))
})

test('a JSON body on a parameterized route, and a body that breaks off', async () => {
  const res = await same(request('POST /t/items/a/parts/b%2Bc', { 'content-type': 'application/json' }, '{"n":1}'))
  assert.equal(json(res).params, { id: 'a', part: 'b+c' })
  const socket = net.connect(gw.port, '127.0.0.1')
  socket.on('error', () => {})
  socket.write(
    request('POST /t/items/a/parts/b', { 'content-type': 'application/json', 'content-length': '100' }).replace(
      /\r\n\r\n$/,
      '\r\n\r\n{"n":',
    ),
  )
  await new Promise((resolve) => setTimeout(resolve, 50))
  socket.destroy()
  await until(() => gw.generation().inFlight === 0, 'the request is counted out')
})

test('a client that goes away mid-stream: the request is aborted, its finish phase runs', async () => {
  const socket = net.connect(gw.port, '127.0.0.1')
  socket.on('error', () => {})
  socket.write(request('GET /t/items/x?reply=hang&tag=gone'))
  await new Promise<void>((resolve) => socket.once('data', () => resolve()))
  assert.is(gw.generation().inFlight, 1)
  socket.destroy()
  await until(() => outcomes.includes('gone aborted'), 'finish saw the abort')
  await until(() => gw.generation().inFlight === 0, 'the request is counted out')
})

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  assert.ok(check(), what)
}

test.run()
