import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'

const test = suite('e2e wire rules')
let gw: TestGateway
const auth = { authorization: `Bearer ${TEST_KEY}` }

test.before(async () => {
  gw = await startTestGateway({ server: { body_limit_bytes: 1024 * 1024 } })
})
test.after(async () => gw.close())

test('every response carries x-gateway-request-id, errors included, each one different', async () => {
  const a = await fetch(`${gw.url}/v1/models`, { headers: auth })
  const b = await fetch(`${gw.url}/v1/nowhere`)
  const idA = a.headers.get('x-gateway-request-id')
  const idB = b.headers.get('x-gateway-request-id')
  assert.ok(idA && idB && idA !== idB)
})

test('an unknown path: 404 unknown endpoint in the gateway error body', async () => {
  const res = await fetch(`${gw.url}/v1/nowhere`, { headers: auth })
  assert.is(res.status, 404)
  assert.equal(await res.json(), { error: { message: 'unknown endpoint', type: 'gateway_error' } })
})

test('a body that is not JSON: 400', async () => {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: '{"model": ',
  })
  assert.is(res.status, 400)
  const body = (await res.json()) as { error: { type: string; message: string } }
  assert.is(body.error.type, 'gateway_error')
  assert.match(body.error.message, /not valid JSON/)
})

test('a body over the limit: 413 request body too large', async () => {
  const big = JSON.stringify({
    model: 'sim-chat-instruct',
    messages: [{ role: 'user', content: 'x'.repeat(1024 * 1024 + 10) }],
  })
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: big,
  })
  assert.is(res.status, 413)
  assert.equal(await res.json(), { error: { message: 'request body too large', type: 'gateway_error' } })
})

test('model missing: 400 model is required', async () => {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ messages: [] }),
  })
  assert.is(res.status, 400)
  assert.is(((await res.json()) as { error: { message: string } }).error.message, 'model is required')
})

test('a cut stream ends with the error event and no [DONE]', async () => {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...auth, 'x-sim-cut-after': '2' },
    body: JSON.stringify({
      model: 'sim-chat-instruct',
      messages: [{ role: 'user', content: 'go on' }],
      stream: true,
      max_tokens: 40,
    }),
  })
  assert.is(res.status, 200)
  const text = await res.text()
  const lines = text.split('\n\n').filter(Boolean)
  assert.not.ok(text.includes('[DONE]'))
  const last = JSON.parse(lines.at(-1)!.replace(/^data: /, '')) as {
    error: { message: string; type: string; code: number }
  }
  assert.is(last.error.type, 'gateway_error')
  assert.is(last.error.code, 502)
  assert.ok(lines.length >= 2, 'content came before the error')
})

test('a complete stream ends with [DONE]', async () => {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ model: 'sim-chat-instruct', messages: [{ role: 'user', content: 'hi' }], stream: true }),
  })
  assert.is(res.headers.get('content-type'), 'text/event-stream; charset=utf-8')
  const text = await res.text()
  assert.ok(text.trimEnd().endsWith('data: [DONE]'))
})

test('the request-id header prefix is configurable', async () => {
  const other = await startTestGateway({ server: { header_prefix: 'x-sluice-' } })
  try {
    const res = await fetch(`${other.url}/v1/models`, { headers: auth })
    assert.ok(res.headers.get('x-sluice-request-id'))
    assert.is(res.headers.get('x-gateway-request-id'), null)
  } finally {
    await other.close()
  }
})

test.run()
