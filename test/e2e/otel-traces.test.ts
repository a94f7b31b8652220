/**
 * OpenTelemetry traces, end to end: a gateway started with OTEL_EXPORTER_OTLP_ENDPOINT set
 * exports its spans over OTLP/HTTP (as JSON here: OTEL_EXPORTER_OTLP_PROTOCOL=http/json) to a
 * local receiver, a plain node:http server on 127.0.0.1 that keeps every POST /v1/traces body.
 * One chat through the openai SDK, with the client's traceparent, gives one trace: the request
 * span (SERVER, child of the client's span, the span the access log names), its queue wait and
 * its model call (CLIENT, whose span id is the parent-id of the traceparent the model server
 * got), with the GenAI attributes; a verdicts request's questions (internal calls) are INTERNAL
 * spans under it, each with its own model call; a refused request is a span with its error
 * type. No prompt text and no key secret anywhere in what was exported.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import { spawn } from 'node:child_process'
import OpenAI from 'openai'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { modelsWith } from '../support/deployment-files.js'
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream.js'
import type { AccessEntry } from '../../kernel/services/observe/access-log.js'
import { repoRoot } from '../../kernel/contract/paths.js'

const test = suite('e2e OpenTelemetry traces over OTLP/HTTP')
const PROMPT = 'confidential: the launch code is tangerine-9731'
const STATE = 'private state: the vault opens with mango-5512'
const CLIENT_TRACE = '5bf92f3577b34da6a3ce929d0e0e4737'
const CLIENT_SPAN = '10f067aa0ba902b8'
const SERVER = 2
const CLIENT = 3
const INTERNAL = 1

interface AnyValue {
  stringValue?: string
  intValue?: number | string
  doubleValue?: number
  boolValue?: boolean
}
interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  startTimeUnixNano: string | number
  endTimeUnixNano: string | number
  attributes: { key: string; value: AnyValue }[]
  status?: { code?: number }
}
interface Export {
  resourceSpans: { resource: { attributes: OtlpSpan['attributes'] }; scopeSpans: { spans: OtlpSpan[] }[] }[]
}

/** A span with its attributes as a plain object. */
interface Span extends OtlpSpan {
  attrs: Record<string, string | number | boolean | undefined>
}

const valueOf = (v: AnyValue) =>
  v.stringValue ?? (v.intValue === undefined ? undefined : Number(v.intValue)) ?? v.doubleValue ?? v.boolValue
const attrsOf = (list: OtlpSpan['attributes']) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]))

const bodies: string[] = []
const paths: string[] = []
let receiver: http.Server
let upstream: FakeUpstream
let gw: TestGateway
const saved: Record<string, string | undefined> = {}

/** Every span received so far. */
function spans(): Span[] {
  return bodies.flatMap((b) =>
    (JSON.parse(b) as Export).resourceSpans.flatMap((r) =>
      r.scopeSpans.flatMap((s) => s.spans.map((span) => ({ ...span, attrs: attrsOf(span.attributes) }))),
    ),
  )
}

/** The spans once `ready` says they are all there (the batch processor sends every 50 ms). */
async function waitFor(ready: (all: Span[]) => boolean, what: string): Promise<Span[]> {
  for (let i = 0; i < 200; i++) {
    const all = spans()
    if (ready(all)) return all
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  assert.unreachable(`${what}: not exported (${spans().length} spans received)`)
  return []
}

/** The access-log line of a request, once written (the test gateway writes every 50 ms). */
async function accessLine(requestId: string): Promise<AccessEntry | undefined> {
  const file = path.join(gw.dataDir, 'access.log')
  for (let i = 0; i < 200; i++) {
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : ''
    const found = text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as AccessEntry)
      .find((e) => e.request_id === requestId)
    if (found) return found
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return undefined
}

test.before(async () => {
  receiver = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      paths.push(`${req.method} ${req.url} ${req.headers['content-type']}`)
      if (req.headers['content-type'] === 'application/json') bodies.push(body)
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  upstream = await startFakeUpstream()
  upstream.handle((_req, _body, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'c',
        object: 'chat.completion',
        created: 1,
        model: 'traced-upstream-name',
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 17, completion_tokens: 3, total_tokens: 20 },
      }),
    )
  })
  // The SDK reads its variables from the process environment.
  const env = {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '50',
    OTEL_SERVICE_NAME: 'sluice-under-test',
  }
  for (const [name, value] of Object.entries(env)) {
    saved[name] = process.env[name]
    process.env[name] = value
  }
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
  await gw.close()
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  await upstream.close()
  receiver.closeAllConnections()
  await new Promise<void>((resolve) => receiver.close(() => resolve()))
})

test('one chat: one trace with the request, queue and model-call spans, GenAI attributes, no prompt text', async () => {
  const client = new OpenAI({
    apiKey: TEST_KEY,
    baseURL: `${gw.url}/v1`,
    maxRetries: 0,
    defaultHeaders: { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` },
  })
  const { response } = await client.chat.completions
    .create({ model: 'traced', messages: [{ role: 'user', content: PROMPT }], max_tokens: 5 })
    .withResponse()
  const requestId = response.headers.get('x-gateway-request-id')!
  const sent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(String(upstream.received.at(-1)!.headers.traceparent))
  assert.ok(sent, 'the model server got a sampled traceparent')
  assert.is(sent![1], CLIENT_TRACE)

  const all = await waitFor((s) => s.some((x) => x.attrs['sluice.request_id'] === requestId), 'the request span')
  const trace = all.filter((s) => s.traceId === CLIENT_TRACE)
  const request = trace.find((s) => s.attrs['sluice.request_id'] === requestId)!
  assert.is(request.kind, SERVER)
  assert.is(request.name, 'POST chat')
  assert.is(request.parentSpanId, CLIENT_SPAN, "the client's span is the parent")
  assert.equal(
    {
      method: request.attrs['http.request.method'],
      route: request.attrs['http.route'],
      status: request.attrs['http.response.status_code'],
      operation: request.attrs['gen_ai.operation.name'],
      model: request.attrs['gen_ai.request.model'],
      responseModel: request.attrs['gen_ai.response.model'],
      input: request.attrs['gen_ai.usage.input_tokens'],
      output: request.attrs['gen_ai.usage.output_tokens'],
      key: request.attrs['sluice.key_id'],
      client: request.attrs['client.address'],
      error: request.attrs['error.type'],
    },
    {
      method: 'POST',
      route: 'chat',
      status: 200,
      operation: 'chat',
      model: 'traced',
      responseModel: 'traced-upstream-name',
      input: 17,
      output: 3,
      key: 'demo',
      client: '127.0.0.1',
      error: undefined,
    },
  )

  const children = trace.filter((s) => s.parentSpanId === request.spanId)
  const queue = children.find((s) => s.name === 'queue wait')
  assert.ok(queue, 'a span for the queue wait, under the request')
  assert.is(queue!.kind, INTERNAL)
  assert.is(queue!.attrs['sluice.queue.pool'], 'traced')
  const calls = children.filter((s) => s.kind === CLIENT)
  assert.is(calls.length, 1, 'one model call')
  const call = calls[0]!
  assert.is(call.spanId, sent![2], "the model call's span is the parent-id of the traceparent sent upstream")
  assert.is(call.name, 'chat traced')
  const port = Number(new URL(upstream.url).port)
  assert.equal(
    {
      operation: call.attrs['gen_ai.operation.name'],
      provider: call.attrs['gen_ai.provider.name'],
      model: call.attrs['gen_ai.request.model'],
      responseModel: call.attrs['gen_ai.response.model'],
      input: call.attrs['gen_ai.usage.input_tokens'],
      output: call.attrs['gen_ai.usage.output_tokens'],
      address: call.attrs['server.address'],
      port: call.attrs['server.port'],
      status: call.attrs['http.response.status_code'],
      error: call.attrs['error.type'],
    },
    {
      operation: 'chat',
      provider: 'traced',
      model: 'traced',
      responseModel: 'traced-upstream-name',
      input: 17,
      output: 3,
      address: '127.0.0.1',
      port,
      status: 200,
      error: undefined,
    },
  )
  // Times nest: the queue wait and the model call lie within the request.
  for (const child of [queue!, call]) {
    assert.ok(BigInt(child.startTimeUnixNano) >= BigInt(request.startTimeUnixNano), `${child.name} starts within`)
    assert.ok(BigInt(child.endTimeUnixNano) <= BigInt(request.endTimeUnixNano), `${child.name} ends within`)
  }
  assert.ok(
    paths.every((p) => p.startsWith('POST /v1/traces application/json')),
    paths.join('; '),
  )
  const resource = attrsOf((JSON.parse(bodies[0]!) as Export).resourceSpans[0]!.resource.attributes)
  assert.is(resource['service.name'], 'sluice-under-test', 'OTEL_SERVICE_NAME applies')

  // The access log names the same request span.
  const logged = await accessLine(requestId)
  assert.equal([logged?.trace_id, logged?.span_id, logged?.parent_span_id], [CLIENT_TRACE, request.spanId, CLIENT_SPAN])
})

test("verdicts: each question's internal call is a child span of the request, with its own model call", async () => {
  const res = await fetch(`${gw.url}/v1/verdicts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      state: STATE,
      questions: {
        polite: { type: 'boolean', instructions: 'Is it polite? [sim-verdict: prefer=Yes]' },
        warm: { type: 'boolean', instructions: 'Is it warm? [sim-verdict: prefer=No]' },
      },
    }),
  })
  assert.is(res.status, 200)
  const requestId = res.headers.get('x-gateway-request-id')!
  const all = await waitFor((s) => {
    const request = s.find((x) => x.attrs['sluice.request_id'] === requestId)
    return request !== undefined && s.filter((x) => x.attrs['sluice.parent_request_id'] === requestId).length === 2
  }, 'the verdicts request and its two internal calls')
  const request = all.find((s) => s.attrs['sluice.request_id'] === requestId)!
  assert.is(request.kind, SERVER)
  assert.is(request.parentSpanId, undefined, 'a fresh trace: the request span is its root')
  const internal = all.filter((s) => s.attrs['sluice.parent_request_id'] === requestId)
  for (const call of internal) {
    assert.is(call.traceId, request.traceId, 'in the same trace')
    assert.is(call.parentSpanId, request.spanId, "the calling request's span is the parent")
    assert.is(call.kind, INTERNAL)
    assert.is(call.name, 'call chat-internal')
    assert.is(call.attrs['sluice.transport'], 'internal')
    assert.is(call.attrs['gen_ai.operation.name'], 'chat', "what the internal chat route's model call did")
    assert.is(call.attrs['http.route'], undefined, 'an internal call is not an HTTP request')
    const model = all.filter((s) => s.parentSpanId === call.spanId && s.kind === CLIENT)
    assert.is(model.length, 1, 'each question: one model call under its internal call')
    assert.is(model[0]!.attrs['gen_ai.operation.name'], 'chat')
    assert.type(model[0]!.attrs['gen_ai.usage.input_tokens'], 'number')
    assert.type(model[0]!.attrs['gen_ai.response.model'], 'string')
  }
})

test('a refused request: a span with its status and error type; nothing secret exported', async () => {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer sk-wrong-secret-123', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'traced', messages: [{ role: 'user', content: PROMPT }] }),
  })
  assert.is(res.status, 401)
  const requestId = res.headers.get('x-gateway-request-id')!
  const all = await waitFor((s) => s.some((x) => x.attrs['sluice.request_id'] === requestId), 'the refused request')
  const span = all.find((s) => s.attrs['sluice.request_id'] === requestId)!
  assert.is(span.attrs['http.response.status_code'], 401)
  assert.is(span.attrs['error.type'], 'unauthorized')
  assert.is(span.status?.code ?? 0, 0, "a 4xx is the client's: the server span's status stays unset")
  assert.not.ok(
    all.some((s) => s.parentSpanId === span.spanId),
    'no queue wait and no model call',
  )

  const text = bodies.join('\n')
  for (const secret of ['tangerine', 'mango-5512', TEST_KEY, 'sk-wrong-secret'])
    assert.not.ok(text.includes(secret), `${secret} is not in the exported spans`)
})

/** What a gateway process with this environment loaded of OpenTelemetry while it served a chat. */
function loadedIn(env: Record<string, string>): Promise<string[]> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')))
  const child = spawn(process.execPath, [path.join(repoRoot, 'dist', 'test', 'support', 'otel-loaded.js')], {
    env: { ...clean, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout.on('data', (c: Buffer) => (out += c.toString()))
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => {
      const line = /^LOADED ?(.*)$/m.exec(out)
      if (code !== 0 || !out.includes('ANSWERED 1') || !line) reject(new Error(`exit ${code}: ${out}`))
      else resolve(line[1]!.split(' ').filter((p) => p !== ''))
    }),
  )
}

test('without an OTLP endpoint nothing of the SDK is loaded; with one, the SDK and the exporter are', async () => {
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`
  const [without, loaded] = await Promise.all([
    loadedIn({}),
    loadedIn({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint }),
  ])
  assert.equal(without, [], 'no @opentelemetry package in a process without OTEL_EXPORTER_OTLP_ENDPOINT')
  for (const pkg of ['@opentelemetry/sdk-trace-base', '@opentelemetry/exporter-trace-otlp-proto'])
    assert.ok(loaded.includes(pkg), `${pkg} loaded (${loaded.join(', ')})`)
  assert.not.ok(loaded.includes('@opentelemetry/exporter-trace-otlp-http'), 'http/protobuf is the default protocol')
  assert.ok(
    paths.some((p) => p.startsWith('POST /v1/traces application/x-protobuf')),
    'its spans came as protobuf',
  )
})

test.run()
