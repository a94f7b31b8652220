/**
 * The response cache end to end, with the openai SDK: a model that opts in (models.yaml
 * `cache:`) answers a repeated request from the cache, whole and streamed, without a call to
 * the model server (the simulator's request count stays put); `x-gateway-cache` says miss then
 * hit; `off` skips it; another group misses; the hit's record carries the tokens, marked cached
 * and charged nothing; an answer expires by the gateway's clock; and in scale-out two gateways
 * on one Redis share their answers.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import { Redis } from 'ioredis'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { keysFile, modelsWith, serverWith } from '../support/deployment-files.js'
import { REDIS_URL, uniqueName } from '../support/services.js'
import { suiteNeeding } from '../support/needs-server.js'
import type { UsageRecord } from '../../kernel/contract/records.js'

/** The catalog with two models of the simulator's instruct server: one opted in, one not. */
const models = modelsWith({
  models: [
    {
      id: 'sim-cached',
      model_type: 'chat',
      backend: 'sim',
      served_name: 'sim-instruct-8b',
      reported_name: 'sim-cached',
      context_window: 32768,
      supports_completions: true,
      prices: { prompt: 0.1, completion: 0.3 },
      cache: { ttl_s: 60 },
    },
    {
      id: 'sim-cached-charged',
      model_type: 'chat',
      backend: 'sim',
      served_name: 'sim-instruct-8b',
      reported_name: 'sim-cached-charged',
      context_window: 32768,
      prices: { prompt: 0.1, completion: 0.3 },
      cache: { ttl_s: 60, charge: 'full' },
    },
    {
      id: 'sim-uncached',
      model_type: 'chat',
      backend: 'sim',
      served_name: 'sim-instruct-8b',
      reported_name: 'sim-uncached',
      context_window: 32768,
    },
  ],
})
const keys = keysFile({ demo: { models: ['*'] }, other: { models: ['*'] } }, [
  { id: 'other', group: 'other', secret: 'sk-other-group' },
])

/** Requests the simulator's instruct server has served so far. */
const served = async (gw: TestGateway) => (await gw.simulator!.stats()).models['sim-instruct-8b']?.requests ?? 0

const ask = (content: string) => ({
  model: 'sim-cached',
  messages: [{ role: 'user' as const, content }],
  max_tokens: 16,
  temperature: 0,
})

const test = suite('e2e response cache (embedded: in memory)')
let gw: TestGateway
let skew = 0

test.before(async () => {
  gw = await startTestGateway({
    files: { 'config/models.yaml': models, 'config/keys.yaml': keys },
    now: () => Date.now() + skew,
  })
})
test.after(async () => {
  await gw?.close()
})

const ids: Record<string, string> = {}

test('a whole answer: miss, then a hit served without a call to the model server', async () => {
  const client = gw.openai()
  const before = await served(gw)
  const first = await client.chat.completions.create(ask('What holds back water?')).withResponse()
  assert.is(first.response.headers.get('x-gateway-cache'), 'miss')
  assert.is(await served(gw), before + 1)
  ids.miss = first.response.headers.get('x-gateway-request-id')!

  const second = await client.chat.completions.create(ask('What holds back water?')).withResponse()
  assert.is(second.response.headers.get('x-gateway-cache'), 'hit')
  assert.is(await served(gw), before + 1, 'the model server was not called')
  assert.equal(second.data, first.data, 'the same answer, word for word')
  ids.hit = second.response.headers.get('x-gateway-request-id')!
})

test('a streamed request is answered from the cache as a stream, with its usage chunk and [DONE]', async () => {
  const client = gw.openai()
  const whole = await client.chat.completions.create(ask('What holds back water?'))
  const before = await served(gw)
  const stream = await client.chat.completions
    .create({ ...ask('What holds back water?'), stream: true, stream_options: { include_usage: true } })
    .withResponse()
  assert.is(stream.response.headers.get('x-gateway-cache'), 'hit')
  assert.match(stream.response.headers.get('content-type') ?? '', /text\/event-stream/)
  let text = ''
  let finish: string | null = null
  let usage: OpenAI.CompletionUsage | undefined
  for await (const chunk of stream.data) {
    assert.is(chunk.object, 'chat.completion.chunk')
    text += chunk.choices[0]?.delta.content ?? ''
    finish = chunk.choices[0]?.finish_reason ?? finish
    usage = chunk.usage ?? usage
  }
  assert.is(text, whole.choices[0]!.message.content)
  assert.is(finish, whole.choices[0]!.finish_reason)
  assert.equal(usage, whole.usage)
  assert.is(await served(gw), before, 'the model server was not called')

  // On the wire: SSE data lines ending with the terminator.
  const raw = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...ask('What holds back water?'), stream: true }),
  })
  assert.is(raw.headers.get('x-gateway-cache'), 'hit')
  const body = await raw.text()
  assert.match(body, /^data: \{"id":/)
  assert.ok(body.trimEnd().endsWith('data: [DONE]'), body.slice(-80))
  assert.is(await served(gw), before)
})

test('a streamed miss fills the cache: the same request, whole, is then a hit', async () => {
  const client = gw.openai()
  const before = await served(gw)
  const stream = await client.chat.completions.create({ ...ask('Name a kind of dam.'), stream: true }).withResponse()
  assert.is(stream.response.headers.get('x-gateway-cache'), 'miss')
  let text = ''
  for await (const chunk of stream.data) text += chunk.choices[0]?.delta.content ?? ''
  assert.is(await served(gw), before + 1)
  const whole = await client.chat.completions.create(ask('Name a kind of dam.')).withResponse()
  assert.is(whole.response.headers.get('x-gateway-cache'), 'hit')
  assert.is(whole.data.choices[0]!.message.content, text)
  assert.ok(whole.data.usage!.completion_tokens > 0, 'the usage the stream told')
  assert.is(await served(gw), before + 1)
})

test('x-gateway-cache: off skips the cache; a model that did not opt in never uses it', async () => {
  const client = gw.openai()
  const before = await served(gw)
  const off = await client.chat.completions
    .create(ask('What holds back water?'), { headers: { 'x-gateway-cache': 'off' } })
    .withResponse()
  assert.is(off.response.headers.get('x-gateway-cache'), null, 'the cache did not apply')
  assert.is(await served(gw), before + 1)

  for (let i = 0; i < 2; i++) {
    const plain = await client.chat.completions
      .create({ ...ask('What holds back water?'), model: 'sim-uncached' }, { headers: { 'x-gateway-cache': 'on' } })
      .withResponse()
    assert.is(plain.response.headers.get('x-gateway-cache'), null)
  }
  assert.is(await served(gw), before + 3)

  const bad = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json', 'x-gateway-cache': 'yes' },
    body: JSON.stringify(ask('What holds back water?')),
  })
  assert.is(bad.status, 400)
  assert.equal(await bad.json(), { error: { message: 'x-gateway-cache must be on or off', type: 'gateway_error' } })
  assert.is(await served(gw), before + 3)
})

test("another group's request misses: groups never share answers", async () => {
  const before = await served(gw)
  const other = await gw.openai('sk-other-group').chat.completions.create(ask('What holds back water?')).withResponse()
  assert.is(other.response.headers.get('x-gateway-cache'), 'miss')
  assert.is(await served(gw), before + 1)
})

test("the hit's record: the tokens it was told, marked cached, charged nothing", async () => {
  const records = await gw.generation().records.list({ from: 0, to: Date.now() + skew + 1 }, 1000)
  const byId = new Map<string, UsageRecord>(records.map((r) => [r.requestId, r]))
  const miss = byId.get(ids.miss!)
  const hit = byId.get(ids.hit!)
  assert.ok(miss && hit, 'both requests have a record')
  assert.equal(
    [hit!.route, hit!.status, hit!.outcome, hit!.model, hit!.modelRequested],
    ['chat', 200, 'done', 'sim-cached', 'sim-cached'],
  )
  assert.equal([miss!.cached, hit!.cached], [false, true])
  assert.ok(miss!.promptTokens > 0 && miss!.completionTokens > 0)
  assert.equal([hit!.promptTokens, hit!.completionTokens], [miss!.promptTokens, miss!.completionTokens])
  assert.ok(miss!.charged > 0, 'the miss is charged its model call')
  assert.is(hit!.charged, 0, 'the hit is charged nothing')
  assert.is(hit!.value, miss!.value, "the hit's indicative value is the answer's")
  assert.is(hit!.queueMs, null, 'a hit never waits in the queue')
})

test('cache.charge: full charges a hit as the miss was charged', async () => {
  const body = { ...ask('charged hits, please'), model: 'sim-cached-charged' }
  const miss = await gw.openai().chat.completions.create(body).withResponse()
  const hit = await gw.openai().chat.completions.create(body).withResponse()
  assert.is(hit.response.headers.get('x-gateway-cache'), 'hit')
  await gw.generation().records.flush()
  const records = await gw.generation().records.list({ from: 0, to: Date.now() + skew + 1 }, 1000)
  const byId = new Map<string, UsageRecord>(records.map((r) => [r.requestId, r]))
  const [m, h] = [miss, hit].map((x) => byId.get(x.response.headers.get('x-gateway-request-id')!)!)
  assert.ok(m!.charged > 0, 'the miss is charged')
  assert.equal([h!.cached, h!.charged], [true, m!.charged], 'the hit is charged what the miss was')
})

test('the legacy completions route: miss, hit, and the hit streamed as text_completion chunks', async () => {
  const client = gw.openai()
  const body = { model: 'sim-cached', prompt: 'Once upon a time', max_tokens: 8, temperature: 0 }
  const first = await client.completions.create(body).withResponse()
  assert.is(first.response.headers.get('x-gateway-cache'), 'miss')
  const before = await served(gw)
  const second = await client.completions.create(body).withResponse()
  assert.is(second.response.headers.get('x-gateway-cache'), 'hit')
  assert.equal(second.data, first.data)
  let text = ''
  for await (const chunk of await client.completions.create({ ...body, stream: true })) {
    assert.is(chunk.object, 'text_completion')
    text += chunk.choices[0]?.text ?? ''
  }
  assert.is(text, first.data.choices[0]!.text)
  assert.is(await served(gw), before)
})

test('the Messages and Responses doors run the chat steps: a repeated request is a hit there too', async () => {
  const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0, timeout: 30_000 })
  const message = {
    model: 'sim-cached',
    max_tokens: 16,
    messages: [{ role: 'user' as const, content: 'Which door is this?' }],
  }
  const first = await anthropic.messages.create(message).withResponse()
  assert.is(first.response.headers.get('x-gateway-cache'), 'miss')
  const before = await served(gw)
  const second = await anthropic.messages.create(message).withResponse()
  assert.is(second.response.headers.get('x-gateway-cache'), 'hit')
  assert.equal(second.data.content, first.data.content)
  assert.equal(second.data.usage.output_tokens, first.data.usage.output_tokens)
  const streamed = await anthropic.messages.stream(message).finalMessage()
  assert.equal(streamed.content, first.data.content, 'streamed from the cache, as Messages events')

  const openai = gw.openai()
  const response = { model: 'sim-cached', input: 'Which door is this?', max_output_tokens: 16, store: false }
  const r1 = await openai.responses.create(response).withResponse()
  assert.is(r1.response.headers.get('x-gateway-cache'), 'miss')
  const afterMiss = await served(gw)
  const r2 = await openai.responses.create(response).withResponse()
  assert.is(r2.response.headers.get('x-gateway-cache'), 'hit')
  assert.is(r2.data.output_text, r1.data.output_text)
  assert.is(await served(gw), afterMiss)
  assert.is(afterMiss, before + 1, 'only the Responses miss reached the model server')
})

test("an answer expires after the model's ttl_s, by the gateway's clock", async () => {
  const client = gw.openai()
  await client.chat.completions.create(ask('How long does water wait?'))
  skew += 59_000
  const fresh = await client.chat.completions.create(ask('How long does water wait?')).withResponse()
  assert.is(fresh.response.headers.get('x-gateway-cache'), 'hit')
  const before = await served(gw)
  skew += 1_000
  const expired = await client.chat.completions.create(ask('How long does water wait?')).withResponse()
  assert.is(expired.response.headers.get('x-gateway-cache'), 'miss')
  assert.is(await served(gw), before + 1)
})

test.run()

// ——— two gateways, one Redis ———

const shared = suiteNeeding(['redis'], 'e2e response cache (scale-out: two gateways on one Redis)')
const prefix = `${uniqueName('sluice-cache')}:`
let a: TestGateway | undefined
let b: TestGateway | undefined

shared.before(async () => {
  const files = {
    'config/models.yaml': models,
    'config/keys.yaml': keys,
    'config/server.yaml': serverWith({ stores: { redis_url: REDIS_URL, redis_prefix: prefix } }),
  }
  a = await startTestGateway({ files })
  b = await startTestGateway({ files })
})
shared.after(async () => {
  await a?.close()
  await b?.close()
  const redis = new Redis(REDIS_URL)
  const stale = await redis.keys(`${prefix}*`)
  if (stale.length > 0) await redis.del(...stale)
  await redis.quit()
})

shared('an answer one gateway kept is served by the other, whole and streamed, without its model server', async () => {
  assert.is(a!.generation().redis ? 'redis' : 'memory', 'redis')
  const first = await a!.openai().chat.completions.create(ask('Who shares the water?')).withResponse()
  assert.is(first.response.headers.get('x-gateway-cache'), 'miss')
  const [aBefore, bBefore] = [await served(a!), await served(b!)]

  const second = await b!.openai().chat.completions.create(ask('Who shares the water?')).withResponse()
  assert.is(second.response.headers.get('x-gateway-cache'), 'hit')
  assert.equal(second.data, first.data)
  let text = ''
  for await (const chunk of await b!
    .openai()
    .chat.completions.create({ ...ask('Who shares the water?'), stream: true }))
    text += chunk.choices[0]?.delta.content ?? ''
  assert.is(text, first.data.choices[0]!.message.content)
  assert.equal([await served(a!), await served(b!)], [aBefore, bBefore], 'neither model server was called')

  const redis = new Redis(REDIS_URL)
  const stored = await redis.keys(`${prefix}response-cache:chat:*`)
  const ttl = await redis.pttl(stored[0]!)
  assert.is(stored.length, 1, 'one answer, under a hashed key')
  assert.ok(ttl > 0 && ttl <= 60_000, `kept with the model's TTL (${ttl} ms left)`)
  await redis.set(stored[0]!, '{not json', 'PX', 60_000)
  await redis.quit()
  const garbled = await b!.openai().chat.completions.create(ask('Who shares the water?')).withResponse()
  assert.is(garbled.response.headers.get('x-gateway-cache'), 'miss', 'an entry that does not parse is a miss')
  assert.is(await served(b!), bBefore + 1)

  const other = await b!.openai('sk-other-group').chat.completions.create(ask('Who shares the water?')).withResponse()
  assert.is(other.response.headers.get('x-gateway-cache'), 'miss', 'another group misses on any gateway')
})

shared.run()
