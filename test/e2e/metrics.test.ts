/**
 * GET /metrics after real requests (the openai SDK against the gateway and its simulator),
 * parsed by a Prometheus text-format parser: the request series by route, status and model,
 * the HTTP and GenAI histograms well formed with `_count` equal to the requests made, tokens
 * equal to what the client was told, upstream errors, process and event-loop series; no key
 * secret and no prompt text in any label. And who may read it: open by default, the metrics
 * token or the admin key once protected.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import OpenAI from 'openai'
import { startTestGateway, TEST_KEY, TEST_DEV_TOKEN, TEST_SERVICE_TOKEN, type TestGateway } from '../support/gateway.js'
import { histogram, histograms, parsePrometheus, samples } from '../support/prometheus-text.js'

const test = suite('e2e metrics')
const MODEL = 'sim-chat-instruct'
const PROMPT = 'the secret plan is purple-elephant-42'

let gw: TestGateway
test.before(async () => {
  gw = await startTestGateway()
})
test.after(async () => {
  await gw.close()
})

async function refused(request: Promise<unknown>, status: number): Promise<void> {
  const err = await request.then(
    () => undefined,
    (e: unknown) => e,
  )
  assert.ok(err instanceof OpenAI.APIError, 'the request failed')
  assert.is(err.status, status)
}

async function scrape(headers: Record<string, string> = {}) {
  const res = await fetch(`${gw.url}/metrics`, { headers })
  assert.is(res.status, 200)
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/)
  const text = await res.text()
  return { text, exposition: parsePrometheus(text) }
}

test('after real requests: request series by route, status and model; histograms well formed; tokens as told', async () => {
  const client = gw.openai()
  let input = 0
  let output = 0
  for (let i = 0; i < 2; i++) {
    const reply = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: PROMPT }],
      max_tokens: 8,
    })
    input += reply.usage!.prompt_tokens
    output += reply.usage!.completion_tokens
  }
  const stream = await client.chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: PROMPT }],
    max_tokens: 8,
    stream: true,
    stream_options: { include_usage: true },
  })
  for await (const chunk of stream) {
    if (chunk.usage) {
      input += chunk.usage.prompt_tokens
      output += chunk.usage.completion_tokens
    }
  }
  // A refused request: counted under its status, without a model.
  await refused(
    gw.openai('sk-not-a-key').chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] }),
    401,
  )

  const { text, exposition } = await scrape()
  const families = exposition.families
  const requests = samples(exposition, 'sluice_requests_total', {
    pipeline: 'gateway',
    route: 'chat',
    status: '200',
    model: MODEL,
  })
  assert.is(requests.length, 1)
  assert.is(Number(requests[0]!.value), 3)
  assert.is(families.get('sluice_requests_total')!.type, 'COUNTER')
  assert.is(
    Number(samples(exposition, 'sluice_requests_total', { route: 'chat', status: '401', model: '' })[0]?.value),
    1,
  )

  const http = histogram(exposition, 'http_server_request_duration_seconds', {
    http_route: 'chat',
    http_request_method: 'POST',
    http_response_status_code: '200',
  })
  assert.is(http.count, 3)
  assert.ok(http.sum > 0)

  const labels = { gen_ai_operation_name: 'chat', gen_ai_request_model: MODEL }
  assert.is(histogram(exposition, 'gen_ai_server_request_duration_seconds', labels).count, 3)
  assert.is(histogram(exposition, 'gen_ai_server_time_to_first_token_seconds', labels).count, 3)
  const tokensIn = histogram(exposition, 'gen_ai_client_token_usage', { ...labels, gen_ai_token_type: 'input' })
  const tokensOut = histogram(exposition, 'gen_ai_client_token_usage', { ...labels, gen_ai_token_type: 'output' })
  assert.equal([tokensIn.count, tokensIn.sum], [3, input])
  assert.equal([tokensOut.count, tokensOut.sum], [3, output])

  // Every histogram of the exposition is well formed, the existing series are still there.
  for (const f of families.values())
    if (f.type === 'HISTOGRAM' && exposition.lines.has(`${f.name}_bucket`)) histograms(exposition, f.name)
  for (const name of [
    'sluice_queue_wait_seconds',
    'sluice_queue_running',
    'sluice_records_written_total',
    'process_cpu_seconds_total',
    'process_resident_memory_bytes',
    'nodejs_eventloop_lag_p99_seconds',
    'nodejs_heap_size_used_bytes',
  ]) {
    assert.ok(families.has(name), `${name} is exposed`)
  }
  assert.is(families.get('process_cpu_seconds_total')!.type, 'COUNTER')
  assert.ok(Number(samples(exposition, 'process_cpu_seconds_total')[0]!.value) > 0)
  for (const secret of [TEST_KEY, TEST_DEV_TOKEN, TEST_SERVICE_TOKEN, 'purple-elephant', 'sk-not-a-key'])
    assert.not.ok(text.includes(secret), `${secret} is not in /metrics`)
})

test("every series' type fits what it does: counters end in _total, nothing else does", async () => {
  // The chats above made the simulator's replica set: its series are in the exposition.
  const { exposition } = await scrape()
  const families = [...exposition.families.values()]
  assert.ok(families.length > 20)
  for (const f of families) {
    if (f.type === 'COUNTER') assert.ok(f.name.endsWith('_total'), `counter ${f.name} ends in _total`)
    // prom-client's name for this gauge, kept so that the usual Node.js dashboards work (docs/decisions.md).
    else if (f.name !== 'nodejs_active_handles_total') assert.not.ok(f.name.endsWith('_total'), `${f.type} ${f.name}`)
  }
  const sent = exposition.families.get('sluice_backend_replica_requests_total')
  assert.is(sent?.type, 'COUNTER', 'requests sent to a replica: a counter')
  assert.ok(Number(samples(exposition, 'sluice_backend_replica_requests_total', { backend: 'sim' })[0]?.value) >= 3)
  for (const gauge of ['sluice_backend_replica_outstanding', 'sluice_backend_replica_ejected', 'sluice_queue_running'])
    assert.is(exposition.families.get(gauge)?.type, 'GAUGE', gauge)
  assert.not.ok(exposition.families.has('sluice_backend_replica_requests'), 'the old gauge name is gone')
})

test('an error of the model server: counted as an upstream error with its status', async () => {
  const client = new OpenAI({
    apiKey: TEST_KEY,
    baseURL: `${gw.url}/v1`,
    maxRetries: 0,
    defaultHeaders: { 'x-return-error': '429' },
  })
  await refused(
    client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], max_tokens: 4 }),
    429,
  )
  const { exposition } = await scrape()
  const errors = samples(exposition, 'sluice_upstream_errors_total', {
    model: MODEL,
    code: 'upstream_error',
    status: '429',
  })
  assert.is(Number(errors[0]?.value), 1)
  const failed = histogram(exposition, 'gen_ai_server_request_duration_seconds', {
    gen_ai_operation_name: 'chat',
    gen_ai_request_model: MODEL,
    error_type: 'upstream_error',
  })
  assert.is(failed.count, 1)
})

test('protected by a metrics token: 401 without or with a wrong one; the token or the admin key reads it', async () => {
  const protectedGw = await startTestGateway({
    env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_METRICS_TOKEN: 'prom-scrape-token', SLUICE_ADMIN_KEY: 'admin-secret' },
  })
  try {
    const get = (auth?: string) =>
      fetch(`${protectedGw.url}/metrics`, { headers: auth ? { authorization: `Bearer ${auth}` } : {} })
    assert.is((await get()).status, 401)
    assert.is((await get('wrong')).status, 401)
    assert.is((await get(TEST_KEY)).status, 401, 'a tenant key does not read metrics')
    const ok = await get('prom-scrape-token')
    assert.is(ok.status, 200)
    assert.ok(parsePrometheus(await ok.text()).families.has('sluice_requests_total'))
    assert.is((await get('admin-secret')).status, 200)
  } finally {
    await protectedGw.close()
  }
})

test('require_admin_key without an admin key configured: 403, never open', async () => {
  const strict = await startTestGateway({
    server: { metrics: { require_admin_key: true }, admin: { generate_key: false } },
  })
  try {
    assert.is((await fetch(`${strict.url}/metrics`)).status, 403)
  } finally {
    await strict.close()
  }
})

test.run()
