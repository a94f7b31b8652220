/**
 * CORS per pipeline, as a browser meets it: a real preflight (OPTIONS with Origin and
 * Access-Control-Request-*) answered by the kernel, a real cross-origin request whose reply
 * (and error) carries the allow headers, a disallowed origin that gets none, OPTIONS that is
 * not a preflight or names no route (405/404 as before), a pipeline without `cors:` unchanged,
 * an invalid `cors:` refused at load; and the Vercel AI SDK used as a browser front end would,
 * through a fetch that sends the Origin, does the preflight first and enforces the answer.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { generateText, streamText } from 'ai'
import { createOpenAI } from '@ai-sdk/openai'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { defaultPipelinesDir } from '../../kernel/contract/paths.js'

const test = suite('e2e CORS')
const ORIGIN = 'http://localhost:5173'
let gw: TestGateway

test.before(async () => {
  gw = await startTestGateway()
})
test.after(() => gw.close())

const preflight = (url: string, origin: string, method = 'POST', headers = 'authorization, content-type') =>
  fetch(url, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  })

test('a preflight from http://localhost:<port> is answered 204 with the allow headers', async () => {
  const res = await preflight(`${gw.url}/v1/chat/completions`, ORIGIN)
  assert.is(res.status, 204)
  assert.is(res.headers.get('access-control-allow-origin'), ORIGIN)
  assert.match(res.headers.get('access-control-allow-methods') ?? '', /\bPOST\b/)
  assert.is(res.headers.get('access-control-allow-headers'), 'authorization, content-type')
  assert.is(res.headers.get('access-control-max-age'), '600')
  assert.match(res.headers.get('vary') ?? '', /origin/i)
  const loopback = await preflight(`${gw.url}/query/v1/query`, 'http://127.0.0.1:3000')
  assert.is(loopback.headers.get('access-control-allow-origin'), 'http://127.0.0.1:3000')
})

test('a cross-origin request: the reply and an error carry the allow and expose headers', async () => {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { origin: ORIGIN, authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim-chat-instruct', messages: [{ role: 'user', content: 'hi' }], max_tokens: 3 }),
  })
  assert.is(res.status, 200)
  assert.is(res.headers.get('access-control-allow-origin'), ORIGIN)
  assert.match(res.headers.get('access-control-expose-headers') ?? '', /\bx-gateway-request-id\b/)
  await res.arrayBuffer()
  const refused = await fetch(`${gw.url}/v1/models`, { headers: { origin: ORIGIN, authorization: 'Bearer sk-wrong' } })
  assert.is(refused.status, 401)
  assert.is(refused.headers.get('access-control-allow-origin'), ORIGIN, 'a browser can show the client its 401')
})

test('a disallowed origin gets no allow headers (preflight and request)', async () => {
  for (const origin of ['https://evil.example', 'http://localhost.evil.example:80', 'http://sub.localhost:8080']) {
    const res = await preflight(`${gw.url}/v1/chat/completions`, origin)
    assert.is(res.status, 204)
    assert.is(res.headers.get('access-control-allow-origin'), null, origin)
    assert.is(res.headers.get('access-control-allow-methods'), null, origin)
  }
  const res = await fetch(`${gw.url}/v1/models`, {
    headers: { origin: 'https://evil.example', authorization: `Bearer ${TEST_KEY}` },
  })
  assert.is(res.status, 200, 'the server does not refuse on Origin: the browser does')
  assert.is(res.headers.get('access-control-allow-origin'), null)
  const wrongMethod = await preflight(`${gw.url}/v1/chat/completions`, ORIGIN, 'DELETE')
  assert.is(
    wrongMethod.headers.get('access-control-allow-origin'),
    null,
    'a method the path does not serve is not allowed',
  )
})

test('OPTIONS that is not a preflight: 405; on no route: 404; a pipeline without cors: 405', async () => {
  assert.is((await fetch(`${gw.url}/v1/chat/completions`, { method: 'OPTIONS' })).status, 405)
  assert.is((await preflight(`${gw.url}/v1/no-such-route`, ORIGIN)).status, 404)
  const admin = await preflight(`${gw.url}/admin/keys`, ORIGIN, 'GET')
  assert.is(admin.status, 405)
  assert.is(admin.headers.get('access-control-allow-origin'), null)
})

test('cors with credentials and origin * is refused at load, with the file named', async () => {
  const file = fs
    .readFileSync(path.join(defaultPipelinesDir, 'gateway.yaml'), 'utf8')
    .replace("origins: ['http://localhost:*', 'http://127.0.0.1:*']", "origins: ['*']\n  credentials: true")
  const err = await startTestGateway({ files: { 'pipelines/gateway.yaml': file } }).then(
    async (g) => {
      await g.close()
      return undefined
    },
    (e: unknown) => e as Error,
  )
  assert.ok(err, 'the gateway does not start')
  assert.match(err.message, /gateway\.yaml/)
  assert.match(err.message, /PIPELINE_INVALID/)
})

/**
 * A fetch that behaves as a browser's does for a cross-origin page at ORIGIN: sends Origin,
 * preflights a non-simple request, and hides the reply unless the gateway allowed the origin.
 */
function browserFetch(log: string[]): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input)
    const headers = new Headers(init?.headers)
    const method = init?.method ?? 'GET'
    const asked = [...headers.keys()]
      .filter((h) => !['accept', 'accept-language', 'content-language'].includes(h))
      .join(', ')
    const pre = await preflight(url, ORIGIN, method, asked)
    log.push(`preflight ${pre.status}`)
    if (pre.headers.get('access-control-allow-origin') !== ORIGIN) throw new TypeError('CORS preflight refused')
    const allowedHeaders = (pre.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/,\s*/)
    for (const h of asked.split(', '))
      if (h && !allowedHeaders.includes(h)) throw new TypeError(`CORS header ${h} not allowed`)
    headers.set('origin', ORIGIN)
    const res = await fetch(url, { ...init, headers })
    if (res.headers.get('access-control-allow-origin') !== ORIGIN) throw new TypeError('CORS refused the reply')
    log.push(`${method} ${res.status}`)
    return res
  }
}

test('the Vercel AI SDK as a browser front end on localhost: generateText and streamText work', async () => {
  const log: string[] = []
  const provider = createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: TEST_KEY, fetch: browserFetch(log) })
  const model = provider.chat('sim-chat-instruct')
  const whole = await generateText({ model, prompt: 'hello from the browser', maxOutputTokens: 8 })
  assert.ok(whole.text.length > 0)
  assert.ok(whole.usage.outputTokens! > 0)
  const streamed = streamText({ model, prompt: 'hello again', maxOutputTokens: 8 })
  let text = ''
  for await (const part of streamed.textStream) text += part
  assert.ok(text.length > 0)
  assert.equal(log, ['preflight 204', 'POST 200', 'preflight 204', 'POST 200'])
})

test.run()
