/**
 * A backend with `http2: true`: the gateway speaks cleartext HTTP/2 (h2c, prior knowledge) to
 * the model server, so concurrent requests share one connection; the simulator answers h2c on
 * its usual port (whole replies and streams); a backend marked HTTP/2 whose server speaks only
 * HTTP/1.1 answers 502, as any unreachable model server does.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import http2 from 'node:http2'
import type { AddressInfo } from 'node:net'
import { loadSimConfig, startSimulator, type RunningSimulator } from '../../sim/index.js'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { modelsWith } from '../support/deployment-files.js'
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream.js'

const test = suite('e2e backend over HTTP/2')
const CONCURRENT = 12

/** An h2c model server that answers each chat after `delayMs`, counting its sessions and the versions it saw. */
async function startH2Upstream(delayMs: number) {
  const seen = { sessions: 0, versions: new Set<string>(), requests: 0, inFlight: 0, mostInFlight: 0 }
  const server = http2.createServer()
  server.on('session', () => seen.sessions++)
  server.on('request', (req, res) => {
    seen.versions.add(req.httpVersion)
    req.resume()
    req.on('end', () => {
      seen.requests++
      seen.mostInFlight = Math.max(seen.mostInFlight, ++seen.inFlight)
      setTimeout(() => {
        seen.inFlight--
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify({
            id: `c${seen.requests}`,
            object: 'chat.completion',
            created: 1,
            model: 'h2-7b',
            choices: [{ index: 0, message: { role: 'assistant', content: 'over h2' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
          }),
        )
      }, delayMs)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

let h2: Awaited<ReturnType<typeof startH2Upstream>>
let h1Only: FakeUpstream
let sim: RunningSimulator
let gw: TestGateway

const model = (id: string, backend: string, served: string) => ({
  id,
  served_name: served,
  reported_name: id,
  model_type: 'chat',
  backend,
  context_window: 32768,
})

test.before(async () => {
  h2 = await startH2Upstream(150)
  h1Only = await startFakeUpstream()
  h1Only.handle((_req, _body, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'))
  sim = await startSimulator({ ...loadSimConfig(), latency: { ttft_ms: 0, itl_ms: 0, jitter: 0 } }, { log: () => {} })
  gw = await startTestGateway({
    files: {
      'config/models.yaml': modelsWith({
        backends: {
          h2fake: { url: h2.url, http2: true, connections: 1, capacity: 64 },
          h2sim: { url: sim.url, http2: true, connections: 1, capacity: 64 },
          h1only: { url: h1Only.url, http2: true, connections: 1, capacity: 8 },
        },
        models: [
          model('h2-fake', 'h2fake', 'h2-7b'),
          model('h2-sim', 'h2sim', 'sim-instruct-8b'),
          model('h2-mismatch', 'h1only', 'h1-7b'),
        ],
      }),
    },
  })
})
test.after(async () => {
  await gw?.close()
  await h2?.close()
  await h1Only?.close()
  await sim?.close()
})

function chat(model: string, extra: object = {}): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }], max_tokens: 8, ...extra }),
  })
}

test('concurrent requests share one HTTP/2 connection to the model server', async () => {
  const replies = await Promise.all(Array.from({ length: CONCURRENT }, () => chat('h2-fake')))
  for (const res of replies) {
    assert.is(res.status, 200)
    const body = (await res.json()) as { choices: { message: { content: string } }[]; usage: { total_tokens: number } }
    assert.is(body.choices[0]!.message.content, 'over h2')
    assert.is(body.usage.total_tokens, 5)
  }
  assert.is(h2.seen.requests, CONCURRENT)
  assert.equal([...h2.seen.versions], ['2.0'])
  // One session, and all twelve in flight at once over it (each waits 150 ms before its answer).
  assert.is(h2.seen.sessions, 1)
  assert.is(h2.seen.mostInFlight, CONCURRENT)
})

test('the simulator answers h2c: a whole reply and a stream', async () => {
  const whole = await chat('h2-sim')
  assert.is(whole.status, 200)
  const body = (await whole.json()) as { choices: { message: { content: string } }[] }
  assert.ok(body.choices[0]!.message.content.length > 0)
  const streamed = await chat('h2-sim', { stream: true })
  assert.is(streamed.status, 200)
  const text = await streamed.text()
  assert.ok(text.includes('"finish_reason":"'), 'a finish reason in the stream')
  assert.ok(text.trimEnd().endsWith('data: [DONE]'), 'the stream ends with [DONE]')
})

test('a backend marked HTTP/2 whose server speaks only HTTP/1.1 answers 502', async () => {
  const res = await chat('h2-mismatch')
  assert.is(res.status, 502)
  const body = (await res.json()) as { error: { type: string; message: string } }
  assert.is(body.error.type, 'gateway_error')
  assert.is(body.error.message, 'upstream request failed')
})

test.run()
