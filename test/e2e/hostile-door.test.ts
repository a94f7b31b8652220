/**
 * Hostile input at the door, each with a tenant key, through the real server: every one is
 * answered with a 4xx of the documented shape (or served as a tenant may be), while another
 * client is served meanwhile. Nothing here is timed: a guard only fails what hangs.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import net from 'node:net'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { failIfStuck } from '../support/stuck.js'

const test = suite('e2e hostile input at the door')
let gw: TestGateway
const auth = { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' }

test.before(async () => {
  // The shipped keys.yaml: tenants may not drive the simulator with control headers.
  gw = await startTestGateway({
    simulatorControls: false,
    server: { limits: { headers_timeout_ms: 1000, body_timeout_ms: 1500 } },
  })
})
test.after(() => gw.close())

const chat = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { ...auth, ...headers }, body })

/** A normal request, made while the hostile one is in flight: it must be served. */
const bystander = () =>
  chat(JSON.stringify({ model: 'sim-chat-instruct', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 })).then(
    (r) => r.status,
  )

/** Runs a hostile request beside a normal one; returns its response. */
async function beside(
  hostile: () => Promise<Response>,
): Promise<{ res: Response; body: { error?: { message: string; type: string } } }> {
  const [res, other] = await Promise.all([hostile(), bystander()])
  const body = (await res.json()) as { error?: { message: string; type: string } }
  assert.is(other, 200, 'the other client was served meanwhile')
  return { res, body }
}

for (const depth of [6_000, 10_000, 100_000]) {
  test(`JSON nested ${depth} levels: 400 at the door, not a 5xx`, async () => {
    const nested = '['.repeat(depth) + ']'.repeat(depth)
    const { res, body } = await beside(() =>
      chat(`{"model":"sim-chat-instruct","messages":[{"role":"user","content":"x"}],"metadata":${nested}}`),
    )
    assert.is(res.status, 400)
    assert.is(body.error?.message, 'request body is nested deeper than 128 levels')
    assert.is(body.error?.type, 'gateway_error')
  })
}

test('nesting inside strings is not nesting: brackets in text pass', async () => {
  const text = '['.repeat(5000) + '{"quoted \\" [' + '{'.repeat(5000)
  const res = await chat(
    JSON.stringify({ model: 'sim-chat-instruct', messages: [{ role: 'user', content: text }], max_tokens: 2 }),
  )
  assert.is(res.status, 200)
  await res.arrayBuffer()
})

test('a tenant sending x-sim-stall-ms: the header stays at the door, the request is served without the stall', async () => {
  // The stall asked for is ten minutes; the guard fails the test long before it would end.
  const { res } = await failIfStuck(
    beside(() =>
      chat(JSON.stringify({ model: 'sim-chat-instruct', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }), {
        'x-sim-stall-ms': '600000',
        'x-return-error': '500',
      }),
    ),
    'a request asking the simulator to stall',
  )
  assert.is(res.status, 200)
})

test('500 image parts: 400 "too many images", no helper call made', async () => {
  const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }
  const { res, body } = await beside(() =>
    chat(
      JSON.stringify({
        model: 'sim-vision',
        messages: [{ role: 'user', content: Array.from({ length: 500 }, () => image) }],
      }),
    ),
  )
  assert.is(res.status, 400)
  assert.is(body.error?.message, 'too many images: 500 image parts, at most 20 per request')
})

/**
 * Opens a raw connection, writes `head`, then nothing more; resolves with what the server
 * answered once it closed the connection (a guard fails one never closed, far past the timeouts).
 */
function stall(head: string): Promise<{ answer: string }> {
  const url = new URL(gw.url)
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(head))
    let answer = ''
    socket.on('data', (c: Buffer) => (answer += c.toString()))
    socket.on('error', reject)
    socket.on('close', () => resolve({ answer }))
    setTimeout(() => {
      socket.destroy()
      reject(new Error(`stuck: still open after 30 s; got ${JSON.stringify(answer)}`))
    }, 30_000).unref()
  })
}

test('a body that never finishes is timed out (408) and the connection closed', async () => {
  const body = '{"model":"sim-chat-instruct","messages":['
  const head = `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_KEY}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n${body}`
  const [{ answer }, other] = await Promise.all([stall(head), bystander()])
  assert.is(other, 200)
  assert.match(answer, /^HTTP\/1\.1 408/)
})

test('headers that never finish are timed out and the connection closed', async () => {
  const { answer } = await stall('GET /v1/models HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer')
  assert.match(answer, /^HTTP\/1\.1 408/)
})

test('requests Node refuses before routing get the documented body and a request id (the fuzzer found bare 431s)', async () => {
  const cases: [string, RegExp, string][] = [
    [
      `GET /v1/models?${'q'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      /^HTTP\/1\.1 431 /,
      'request headers too large',
    ],
    ['NOT HTTP AT ALL\r\n\r\n', /^HTTP\/1\.1 400 /, 'malformed HTTP request'],
    [
      'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n',
      /^HTTP\/1\.1 400 /,
      'malformed HTTP request',
    ],
  ]
  for (const [head, status, message] of cases) {
    const { answer } = await stall(head)
    assert.match(answer, status)
    assert.match(answer, /\r\nx-gateway-request-id: [0-9a-f-]{36}\r\n/)
    assert.equal(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), {
      error: { message, type: 'gateway_error' },
    })
  }
  const { answer } = await stall('GET /v1/models HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer')
  assert.match(answer, /"request timed out"/)
  // A HEAD's answer has no body, refused or not.
  const head = await stall(`HEAD /v1/models?${'q'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`)
  assert.match(head.answer, /^HTTP\/1\.1 431 /)
  assert.ok(head.answer.endsWith('\r\n\r\n'), head.answer)
})

test.run()
