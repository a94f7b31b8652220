/**
 * The access log and W3C trace context, end to end: a request through the openai SDK with the
 * client's `traceparent` reaches a model server (a scripted one on a loopback port, so the
 * test reads the exact headers it got) with the same trace id and the gateway's own span as
 * parent; the access-log file then holds one JSON line for the request with its ids, route,
 * key id, model, status, tokens and timings, and neither the prompt nor the key's secret.
 * A request without a traceparent, or with an invalid one, gets a fresh trace. Each line has
 * the client's address (the socket's: a client's own X-Forwarded-For is not believed, unless it
 * comes through a proxy of `trusted_proxies`) and every failure its error code (401, 404).
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import OpenAI from 'openai'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { modelsWith } from '../support/deployment-files.js'
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream.js'
import type { AccessEntry } from '../../kernel/services/observe/access-log.js'

const test = suite('e2e access log and traceparent')
const PROMPT = 'confidential: the launch code is tangerine-9731'
const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const CLIENT_SPAN = '00f067aa0ba902b7'
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

let upstream: FakeUpstream
let gw: TestGateway

test.before(async () => {
  upstream = await startFakeUpstream()
  upstream.handle((_req, _body, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'c',
        object: 'chat.completion',
        created: 1,
        model: 'traced',
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 17, completion_tokens: 3, total_tokens: 20 },
      }),
    )
  })
  gw = await startTestGateway({
    files: {
      'config/models.yaml': modelsWith({
        backends: { traced: { url: upstream.url, capacity: 8 } },
        models: [{ id: 'traced', model_type: 'chat', backend: 'traced', context_window: 8192 }],
      }),
    },
  })
})
test.after(async () => {
  await upstream.close()
})

/** One chat request with these headers; its request id and the traceparent the model server got. */
async function chat(headers: Record<string, string>): Promise<{ requestId: string; upstream: string }> {
  const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0, defaultHeaders: headers })
  const { response } = await client.chat.completions
    .create({ model: 'traced', messages: [{ role: 'user', content: PROMPT }], max_tokens: 5 })
    .withResponse()
  const got = upstream.received.at(-1)!.headers.traceparent
  assert.type(got, 'string', 'the model server received a traceparent')
  return { requestId: response.headers.get('x-gateway-request-id')!, upstream: got as string }
}

test('traceparent continued to the model server; one access-log line per request, without prompt or secret', async () => {
  const continued = await chat({ traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`, tracestate: 'vendor=abc' })
  const [, traceId, parentId, flags] = TRACEPARENT.exec(continued.upstream)!
  assert.is(traceId, CLIENT_TRACE, 'the same trace id')
  assert.is.not(parentId, CLIENT_SPAN, "the gateway's own span is the parent")
  assert.is(flags, '01')
  assert.is(upstream.received.at(-1)!.headers.tracestate, 'vendor=abc')

  const fresh = await chat({})
  const freshTrace = TRACEPARENT.exec(fresh.upstream)
  assert.ok(freshTrace, 'a request without traceparent gets a valid fresh one')
  assert.is.not(freshTrace![1], CLIENT_TRACE)

  const invalid = await chat({
    traceparent: `00-${'0'.repeat(32)}-${CLIENT_SPAN}-01`,
    'x-forwarded-for': '203.0.113.7',
  })
  const refused = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer sk-not-a-key', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'traced', messages: [{ role: 'user', content: PROMPT }] }),
  })
  assert.is(refused.status, 401)
  assert.ok(TRACEPARENT.test(invalid.upstream))
  assert.not.ok(invalid.upstream.includes('0'.repeat(32)), 'an invalid traceparent (all-zero trace id) is replaced')

  // Closing flushes the batch: the file then holds every line.
  await gw.close()
  const text = fs.readFileSync(path.join(gw.dataDir, 'access.log'), 'utf8')
  assert.not.ok(text.includes('tangerine'), 'no prompt text in the access log')
  assert.not.ok(text.includes(TEST_KEY), 'no key secret in the access log')
  const entries = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as AccessEntry)
  const line = entries.filter((e) => e.request_id === continued.requestId)
  assert.is(line.length, 1, 'one line for the request')
  const e = line[0]!
  assert.equal(
    {
      route: e.route,
      pipeline: e.pipeline,
      method: e.method,
      path: e.path,
      key_id: e.key_id,
      model: e.model,
      status: e.status,
      outcome: e.outcome,
      tokens_in: e.tokens_in,
      tokens_out: e.tokens_out,
      usage_source: e.usage_source,
      transport: e.transport,
    },
    {
      route: 'chat',
      pipeline: 'gateway',
      method: 'POST',
      path: '/v1/chat/completions',
      key_id: 'demo',
      model: 'traced',
      status: 200,
      outcome: 'done',
      tokens_in: 17,
      tokens_out: 3,
      usage_source: 'reported',
      transport: 'http',
    },
  )
  assert.equal([e.trace_id, e.parent_span_id, e.span_id], [CLIENT_TRACE, CLIENT_SPAN, parentId])
  assert.type(e.ttft_ms, 'number')
  assert.type(e.queue_ms, 'number')
  assert.ok(e.duration_ms >= e.ttft_ms!)
  assert.ok(Number.isFinite(Date.parse(e.time)))
  assert.is(
    entries.find((x) => x.request_id === fresh.requestId)?.trace_id,
    freshTrace![1],
    'the access log shows the fresh trace id sent upstream',
  )
  assert.is(entries.find((x) => x.request_id === invalid.requestId)?.parent_span_id, undefined)
  assert.is(e.client_address, '127.0.0.1', "the socket's address")
  assert.is(e.error_code, undefined, 'no error code on a success')
  assert.is(
    entries.find((x) => x.request_id === invalid.requestId)?.client_address,
    '127.0.0.1',
    "a client's own X-Forwarded-For is not believed without trusted proxies",
  )
  const denied = entries.find((x) => x.request_id === refused.headers.get('x-gateway-request-id'))
  assert.equal(
    [denied?.status, denied?.outcome, denied?.error_code, denied?.key_id, denied?.client_address],
    [401, 'failed', 'unauthorized', null, '127.0.0.1'],
  )
})

test('behind a trusted proxy: the client is the first untrusted address of X-Forwarded-For; a 404 has its code', async () => {
  const behind = await startTestGateway({ server: { trusted_proxies: ['127.0.0.1', '10.0.0.0/8'] } })
  const ask = (xff: string | undefined, model: string) =>
    fetch(`${behind.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TEST_KEY}`,
        'content-type': 'application/json',
        ...(xff === undefined ? {} : { 'x-forwarded-for': xff }),
      },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: PROMPT }], max_tokens: 2 }),
    })
  const proxied = await ask('198.51.100.4, 203.0.113.7, 10.1.2.3', 'sim-chat-instruct')
  const direct = await ask(undefined, 'sim-chat-instruct')
  const missing = await ask('203.0.113.8', 'no-such-model')
  assert.equal([proxied.status, direct.status, missing.status], [200, 200, 404])
  await behind.close()
  const entries = fs
    .readFileSync(path.join(behind.dataDir, 'access.log'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as AccessEntry)
  const line = (res: Response) => entries.find((x) => x.request_id === res.headers.get('x-gateway-request-id'))
  assert.is(line(proxied)?.client_address, '203.0.113.7', 'past the trusted proxy 10.1.2.3, the first untrusted hop')
  assert.is(line(direct)?.client_address, '127.0.0.1', 'without the header: the proxy itself')
  assert.equal([line(missing)?.client_address, line(missing)?.error_code], ['203.0.113.8', 'not_found'])
})

test.run()
