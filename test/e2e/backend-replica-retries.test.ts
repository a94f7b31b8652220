/**
 * Retries across replicas, with scripted model servers on their own ports: a replica's 503 is
 * retried on another and the replica is ejected after consecutive failures; a request never
 * goes twice to one replica (both failing: the client gets the error, each replica one try); a
 * stream whose replica dies after its headers but before its first bytes is answered whole by
 * another; a stream cut after its first bytes is not retried (the client sees the in-band error,
 * never a second answer spliced on). A whole (JSON) answer whose body breaks before its end is
 * answered by another: nothing of it had reached the client.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type http from 'node:http'
import { startFakeUpstream, sse, type FakeUpstream } from '../support/fake-upstream.js'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { modelsWith } from '../support/deployment-files.js'

const test = suite('e2e backend replica retries')
let gw: TestGateway
const fakes: Record<string, FakeUpstream> = {}
const NAMES = ['a1', 'a2', 'b1', 'b2', 'c1', 'c2', 'd1', 'd2', 'e1', 'e2'] as const

const completion = (content: string) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'fake',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
})
const chunk = (delta: object, finish: string | null) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'fake',
  choices: [{ index: 0, delta, finish_reason: finish }],
})
const usageChunk = {
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'fake',
  choices: [],
  usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
}

/** A healthy replica: answers every chat request whole, saying who it is. */
function healthy(name: string) {
  return (req: http.IncomingMessage, body: string, res: http.ServerResponse): void => {
    if (req.url === '/health') return void res.writeHead(200).end()
    const stream = (JSON.parse(body) as { stream?: boolean }).stream === true
    if (!stream)
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(completion(`from ${name}`)))
    sse(res, [
      chunk({ role: 'assistant', content: '' }, null),
      chunk({ content: `from ${name}` }, null),
      chunk({}, 'stop'),
      usageChunk,
      '[DONE]',
    ])
  }
}

const chats = (name: string): number => fakes[name]!.received.filter((r) => r.path === '/v1/chat/completions').length

test.before(async () => {
  for (const n of NAMES) fakes[n] = await startFakeUpstream()
  const pool = (a: string, b: string, policy = 'least_loaded') => ({
    replicas: [fakes[a]!.url, fakes[b]!.url],
    routing: { policy },
    // Health checks far apart: the counts below are of chat requests alone.
    health_check: { interval_ms: 60_000 },
    outlier_detection: { consecutive_failures: 2, base_ejection_ms: 60_000 },
  })
  const backends = {
    'pool-a': pool('a1', 'a2'),
    'pool-b': pool('b1', 'b2'),
    'pool-c': pool('c1', 'c2', 'round_robin'),
    'pool-d': pool('d1', 'd2', 'round_robin'),
    'pool-e': pool('e1', 'e2', 'round_robin'),
  }
  const models = Object.keys(backends).map((b) => ({
    id: `m-${b}`,
    model_type: 'chat',
    backend: b,
    served_name: 'fake',
    reported_name: `fake-${b}`,
    context_window: 8192,
  }))
  gw = await startTestGateway({ files: { 'config/models.yaml': modelsWith({ backends, models }) } })
})

test.after(async () => {
  await gw?.close()
  await Promise.all(Object.values(fakes).map((f) => f.close()))
})

async function ask(model: string, stream: boolean): Promise<{ status: number; text: string }> {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }], stream }),
  })
  return { status: res.status, text: await res.text() }
}

test('a replica answering 503 is retried on the other, then ejected', async () => {
  fakes.a1!.handle((req, _body, res) =>
    req.url === '/health'
      ? res.writeHead(200).end()
      : res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"engine dead"}}'),
  )
  fakes.a2!.handle(healthy('a2'))
  for (let i = 0; i < 8; i++) {
    const r = await ask('m-pool-a', i % 2 === 1)
    assert.is(r.status, 200)
    assert.ok(r.text.includes('from a2'), r.text)
  }
  assert.is(chats('a2'), 8, 'the healthy replica answered every request once')
  assert.is(chats('a1'), 2, 'two failures in a row ejected the failing replica: no third try')
})

test('never twice the same replica: both failing, the client gets the error after one try on each', async () => {
  const fail = (req: http.IncomingMessage, _body: string, res: http.ServerResponse) =>
    req.url === '/health'
      ? res.writeHead(200).end()
      : res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"overloaded"}}')
  fakes.b1!.handle(fail)
  fakes.b2!.handle(fail)
  const r = await ask('m-pool-b', false)
  assert.is(r.status, 503)
  assert.match(r.text, /overloaded/)
  assert.equal([chats('b1'), chats('b2')], [1, 1])
})

test('a stream whose replica dies after its headers, before its first bytes, is answered whole by the other', async () => {
  fakes.d1!.handle((req, _body, res) => {
    if (req.url === '/health') return void res.writeHead(200).end()
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.flushHeaders()
    setImmediate(() => res.destroy())
  })
  fakes.d2!.handle(healthy('d2'))
  const r = await ask('m-pool-d', true)
  assert.is(r.status, 200)
  assert.ok(r.text.includes('from d2'), r.text)
  assert.ok(r.text.trimEnd().endsWith('data: [DONE]'), r.text)
  assert.is((r.text.match(/"finish_reason":"stop"/g) ?? []).length, 1, 'one finish')
  assert.equal([chats('d1'), chats('d2')], [1, 1])
})

test('a stream cut after its first bytes is not retried: the in-band error, no second answer', async () => {
  fakes.c1!.handle((req, _body, res) => {
    if (req.url === '/health') return void res.writeHead(200).end()
    sse(res, [chunk({ role: 'assistant', content: '' }, null), chunk({ content: 'from c1, half' }, null)], false)
  })
  fakes.c2!.handle(healthy('c2'))
  const r = await ask('m-pool-c', true)
  assert.is(r.status, 200)
  assert.ok(r.text.includes('from c1, half'))
  assert.not.ok(r.text.includes('from c2'), 'nothing of another replica spliced on')
  assert.match(r.text, /"error"/)
  assert.not.ok(r.text.includes('[DONE]'))
  assert.equal([chats('c1'), chats('c2')], [1, 0])
})

test('a JSON answer whose body breaks before its end is answered whole by the other replica', async () => {
  fakes.e1!.handle((req, _body, res) => {
    if (req.url === '/health') return void res.writeHead(200).end()
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '400' })
    res.write('{"id":"chatcmpl-1","object":"chat.comp')
    setImmediate(() => res.destroy())
  })
  fakes.e2!.handle(healthy('e2'))
  const r = await ask('m-pool-e', false)
  assert.is(r.status, 200, r.text)
  assert.is(
    (JSON.parse(r.text) as { choices: { message: { content: string } }[] }).choices[0]!.message.content,
    'from e2',
  )
  assert.equal([chats('e1'), chats('e2')], [1, 1])
})

test.run()
