/**
 * The Query service over WebSocket end to end, with the real `ws` client on a real socket: the
 * token in the query string (both kinds), refusals before the socket opens, error messages that
 * name the id and leave the socket open, the close codes (1008, 1009), a query streamed as
 * deltas, a compare across three models against the usage records, a query and a compare
 * interleaved on one socket, a cut upstream, a client gone mid-stream, ping/pong and dead peers.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import WebSocket from 'ws'
import { startTestGateway, TEST_DEV_TOKEN, TEST_KEY, TEST_SERVICE_TOKEN, type TestGateway } from '../support/gateway.js'
import type { UsageRecord } from '../../kernel/contract/records.js'
import type { UsageMetric } from '../../protocols/query/usage-metric.js'
import { QueryWsClient, socketUrl, type Json } from '../support/query-ws-client.js'
import { failIfStuck, until } from '../support/stuck.js'

const test = suite('e2e query service (WebSocket)')
const ADMIN = 'sk-admin-query-ws-e2e'
let gw: TestGateway

/** The shared test client, on this suite's gateway (the service token unless told). */
const Client = {
  open: (token: string | null = TEST_SERVICE_TOKEN, options: WebSocket.ClientOptions = {}) =>
    QueryWsClient.open(gw.url, token, options),
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const query = (id: string, extra: object = {}) => ({
  id,
  action: 'query',
  endpoint: 'query',
  query: 'What does the handbook say about keys?',
  ...extra,
})
const compare = (id: string, extra: object = {}) => ({
  id,
  action: 'query_compare',
  query: 'Which model answers best?',
  model_provider: 'gateway',
  model_name: 'sim-chat-instruct',
  ...extra,
})

/** The HTTP status of a refused upgrade (ws's `unexpected-response`), with its body. */
function refusal(token: string | null): Promise<{ status: number; body: Json }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(socketUrl(gw.url, token))
    ws.on('open', () => reject(new Error('the socket opened')))
    ws.on('error', () => undefined)
    ws.on('unexpected-response', (_req, res) => {
      let text = ''
      res.on('data', (d: Buffer) => (text += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as Json }))
    })
  })
}

async function simulator(settings: object): Promise<void> {
  const res = await fetch(`${gw.simulator!.url}/admin/config`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(settings),
  })
  assert.is(res.status, 200, await res.text())
}

async function records(route: string): Promise<UsageRecord[]> {
  await gw.generation().records.flush()
  return (
    (await gw.generation().records.list({ from: 0, to: Date.now() + 1, keyId: 'demo' }, 1000)) as UsageRecord[]
  ).filter((r) => r.route === route)
}

test.before(async () => {
  gw = await startTestGateway({
    env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN },
    server: {
      stores: { records_flush_ms: 50 } as never,
      websocket: { max_payload_bytes: 65536, ping_interval_ms: 200, max_in_flight: 4 } as never,
    },
  })
})
test.after(() => gw.close())

test('upgrade: no token and a bad token are refused with 401 before the socket opens; a service token opens it', async () => {
  for (const token of [null, 'qt-not-a-token']) {
    const { status, body } = await refusal(token)
    assert.is(status, 401)
    assert.is(body.error.status, 401)
    assert.match(body.error.message, token === null ? /missing bearer token/ : /invalid access token/)
  }
  const client = await Client.open()
  client.send(query('s1'))
  const msgs = await client.finished('s1')
  assert.is(msgs.at(-1)!.type, 'query.done', JSON.stringify(msgs.at(-1)))
  client.close()
})

test('a developer token opens the socket and needs project_id in each message', async () => {
  const client = await Client.open(TEST_DEV_TOKEN)
  client.send(query('d1'))
  const [error] = await client.finished('d1')
  assert.is(error!.type, 'error')
  assert.is(error!.error.status, 400)
  assert.match(error!.error.message, /project_id is required with a developer token/)
  client.send(query('d2', { project_id: 'other' }))
  assert.is((await client.finished('d2'))[0]!.error.status, 403)
  client.send(query('d3', { project_id: 'demo' }))
  assert.is((await client.finished('d3')).at(-1)!.type, 'query.done')
  client.close()
})

test('a token deleted while its socket is open: the next message gets 401 and the socket closes with 1008', async () => {
  const admin = (method: string, path: string, body?: object) =>
    fetch(`${gw.url}/admin/projects/demo/tokens${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    })
  const made = (await (await admin('POST', '', { kind: 'service' })).json()) as {
    token: { id: string }
    secret: string
  }
  const client = await Client.open(made.secret)
  client.send(query('before'))
  assert.is((await client.finished('before')).at(-1)!.type, 'query.done')
  assert.is((await admin('DELETE', `/${made.token.id}`)).status, 200)
  client.send(query('after'))
  const [error] = await client.finished('after')
  assert.is(error!.error.status, 401)
  const { code, reason } = await client.closed
  assert.is(code, 1008)
  assert.match(reason, /access token no longer valid/)
})

test('a bad JSON message and a schema-invalid one get error messages naming the id and the field; the socket stays open', async () => {
  const client = await Client.open()
  client.send('{"id": "j1", not json')
  const [bad] = await client.finished(null)
  assert.is(bad!.error.status, 400)
  assert.match(bad!.error.message, /not valid JSON/)
  client.send(query('v1', { search_params: { top_k: 1000 } }))
  const [invalid] = await client.finished('v1')
  assert.is(invalid!.type, 'error')
  assert.is(invalid!.error.status, 400)
  assert.match(invalid!.error.message, /\/search_params\/top_k must be <= 100/)
  client.send(query('v2', { surprise: 1 }))
  assert.match((await client.finished('v2'))[0]!.error.message, /must NOT have additional properties 'surprise'/)
  client.send({ id: 'v3', action: 'translate', query: 'x' })
  assert.match((await client.finished('v3'))[0]!.error.message, /no route on this socket serves .*action "translate"/)
  // endpoint realtime is matched first (its route, query-realtime): a text is no audio.
  client.send({
    id: 'v4',
    action: 'query',
    endpoint: 'realtime',
    query: 'x',
    audio_file: Buffer.from('hello there').toString('base64'),
  })
  const [realtime] = await client.finished('v4')
  assert.is(realtime!.error.status, 400)
  assert.match(realtime!.error.message, /Invalid or unsupported audio file/)
  client.send(query('v5'))
  assert.is((await client.finished('v5')).at(-1)!.type, 'query.done', 'the socket still serves')
  assert.is(client.ws.readyState, WebSocket.OPEN)
  client.close()
})

test('a message over max_payload_bytes closes the socket with 1009', async () => {
  const client = await Client.open()
  client.send(query('big', { query: 'x'.repeat(70_000) }))
  const { code } = await client.closed
  assert.is(code, 1009)
})

test('a query is streamed as deltas whose concatenation is the final answer, in the REST response shape', async () => {
  const client = await Client.open()
  client.send(query('q1'))
  const msgs = await client.finished('q1')
  const deltas = msgs.filter((m) => m.type === 'query.delta')
  const done = msgs.at(-1)!
  assert.is(done.type, 'query.done')
  assert.ok(deltas.length > 3, `${deltas.length} deltas`)
  assert.is(deltas.map((d) => d.delta).join(''), done.response.response.response)
  const meta = done.response.response.metadata
  assert.match(done.response.query_id, /^q-/)
  assert.is(meta.query_id, done.response.query_id)
  assert.equal(meta.sources, {})
  assert.is(meta.finish_reason, 'stop')
  const m = meta.usage_metric as UsageMetric
  assert.ok(m.output_token_count > 0)
  // The answer was recorded under the project's key, with the same tokens.
  const rec = (await records('query-chat')).find(
    (r) => r.promptTokens === m.input_token_count && r.completionTokens === m.output_token_count,
  )
  assert.ok(rec, 'a query-chat record of key demo with the usage_metric tokens')
  client.close()
})

test('a query and a compare interleaved on one socket are told apart by their ids', async () => {
  const client = await Client.open()
  await simulator({ latency: { ttft_ms: 5, itl_ms: 2 } })
  try {
    client.send(query('i-query'))
    client.send(compare('i-compare'))
    const [q, c] = await Promise.all([client.finished('i-query'), client.finished('i-compare')])
    assert.ok(
      q.every((m) => m.type.startsWith('query.')),
      JSON.stringify(q.find((m) => !m.type.startsWith('query.'))),
    )
    assert.ok(
      c.every((m) => m.type.startsWith('compare.')),
      JSON.stringify(c.find((m) => !m.type.startsWith('compare.'))),
    )
    // Interleaved: the compare's messages arrive while the query's are still coming.
    const order = client.messages.map((m) => m.id)
    const lastQuery = order.lastIndexOf('i-query')
    assert.ok(order.indexOf('i-compare') < lastQuery, 'messages of both ids interleave')
    assert.is(
      q
        .filter((m) => m.type === 'query.delta')
        .map((m) => m.delta)
        .join(''),
      q.at(-1)!.response.response.response,
    )
  } finally {
    await simulator({ latency: { ttft_ms: 0, itl_ms: 0 } })
  }
  client.close()
})

test('a compare across three models: deltas tagged by model, one summary each matching the usage records, then the final message', async () => {
  const client = await Client.open()
  client.send(compare('c1'))
  const msgs = await client.finished('c1')
  const done = msgs.at(-1)!
  assert.is(done.type, 'compare.done', JSON.stringify(done))
  const models = ['sim-chat-instruct', 'sim-chat-thinking', 'sim-vision']
  assert.equal(done.response.response.metadata.models, models)
  const summaries = msgs.filter((m) => m.type === 'compare.summary')
  assert.equal(summaries.map((s) => s.model).sort(), [...models].sort())
  const found = await records('query-chat')
  let total = 0
  for (const s of summaries) {
    const text = msgs
      .filter((m) => m.type === 'compare.delta' && m.model === s.model)
      .map((m) => m.delta)
      .join('')
    assert.is(text, s.answer, `${s.model}: deltas add up to the answer`)
    assert.ok(s.latency_ms >= s.time_to_first_token_ms && s.time_to_first_token_ms >= 0, JSON.stringify(s))
    const m = s.usage_metric as UsageMetric
    assert.ok(
      m.input_token_details.user_query > 0 && m.input_token_details.system_prompt > 0,
      JSON.stringify(m.input_token_details),
    )
    const rec = found.find(
      (r) =>
        r.model === s.model && r.promptTokens === m.input_token_count && r.completionTokens === m.output_token_count,
    )
    assert.ok(rec, `a query-chat record of ${s.model} with ${m.input_token_count}/${m.output_token_count} tokens`)
    assert.ok(
      Math.abs(rec!.value - m.total_token_cost) < 1e-11,
      `${s.model}: cost ${m.total_token_cost} vs record ${rec!.value}`,
    )
    assert.is(rec!.outcome, 'done')
    total += m.total_token_count
  }
  assert.is(done.response.response.metadata.usage_metric.total_token_count, total)
  assert.equal(
    done.response.response.response.map((s: Json) => s.model),
    models,
  )
  client.close()
})

test("the spec's form of a compare (action query, no endpoint) is a compare; with endpoint query it is a query", async () => {
  const client = await Client.open()
  client.send({ ...compare('spec-compare'), action: 'query' })
  client.send(query('spec-query'))
  const [compared, queried] = await Promise.all([client.finished('spec-compare'), client.finished('spec-query')])
  assert.is(compared.at(-1)!.type, 'compare.done', JSON.stringify(compared.at(-1)))
  assert.is(queried.at(-1)!.type, 'query.done', JSON.stringify(queried.at(-1)))
  client.close()
})

test('a cut upstream ends the query with an error message, never a silent stop', async () => {
  const client = await Client.open()
  await simulator({ failure: { rate: 100, types: ['cut_stream'], cut_after_chunks: 3 } })
  try {
    client.send(query('cut'))
    const msgs = await client.finished('cut')
    const last = msgs.at(-1)!
    assert.is(last.type, 'error', JSON.stringify(last))
    assert.is(last.error.status, 502)
    assert.ok(msgs.filter((m) => m.type === 'query.delta').length <= 3)
  } finally {
    await simulator({ failure: { rate: 0 } })
  }
  client.send(query('after-cut'))
  assert.is((await client.finished('after-cut')).at(-1)!.type, 'query.done', 'the socket serves on')
  client.close()
})

test('a client gone mid-stream aborts the upstream call, and the record says aborted', async () => {
  await simulator({ latency: { ttft_ms: 0, itl_ms: 30 } })
  try {
    const client = await Client.open()
    const since = Date.now()
    client.send(query('gone', { request_source: 'override_params', model_params: { max_tokens: 400 } }))
    await client.firstOf('gone')
    client.ws.terminate()
    let aborted: UsageRecord | undefined
    for (let i = 0; i < 100 && !aborted; i++) {
      await sleep(50)
      aborted = (await records('query-chat')).find((r) => r.at >= since && r.outcome === 'aborted')
    }
    assert.ok(
      aborted,
      `an aborted query-chat record: ${JSON.stringify((await records('query-chat')).filter((r) => r.at >= since))}`,
    )
    assert.is(aborted!.status, 499)
    assert.ok(aborted!.completionTokens < 400, `${aborted!.completionTokens} tokens: stopped early`)
  } finally {
    await simulator({ latency: { ttft_ms: 0, itl_ms: 0 } })
  }
})

test('more requests in flight than max_in_flight close the socket with 1008', async () => {
  await simulator({ latency: { ttft_ms: 0, itl_ms: 20 } })
  try {
    const client = await Client.open()
    for (let i = 0; i < 5; i++) client.send(query(`f${i}`))
    const { code, reason } = await client.closed
    assert.is(code, 1008)
    assert.match(reason, /more than 4 requests in flight/)
  } finally {
    await simulator({ latency: { ttft_ms: 0, itl_ms: 0 } })
  }
})

test('ping/pong keeps a live socket open; a peer that stops answering pings is terminated', async () => {
  const live = await Client.open()
  let pings = 0
  live.ws.on('ping', () => pings++)
  await until('three pings', () => pings >= 3)
  assert.is(live.ws.readyState, WebSocket.OPEN, 'answering its pings, it stays open')
  live.send(query('alive'))
  assert.is((await live.finished('alive')).at(-1)!.type, 'query.done')
  live.close()
  // No automatic pong: the server sees a dead peer at its second ping and drops it.
  const dead = await Client.open(TEST_SERVICE_TOKEN, { autoPong: false })
  let unanswered = 0
  dead.ws.on('ping', () => unanswered++)
  const { code } = await failIfStuck(dead.closed, 'a peer that does not answer pings')
  assert.is(code, 1006, 'terminated, without a close frame')
  assert.is(unanswered, 1, 'dropped at the ping after the one it did not answer')
})

test.run()
