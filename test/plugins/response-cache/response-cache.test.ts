/**
 * The response-cache step alone, between a prepared exchange and a fake model step: what is kept,
 * what a later request gets (whole or streamed), what it is told it used, and what is never kept.
 */
import net from 'node:net'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import responseCache from '../../../plugins/response-cache/index.js'
import {
  answeredWith,
  closePluginStates,
  harnessLogs,
  makeKernel,
  runPlugin,
  setupPlugin,
  type Scenario,
} from '../../../bin/testing/harness.js'
import { reply, SerializedEvent, type StreamEvent } from '../../../kernel/contract/reply.js'
import type { Exchange, Principal } from '../../../kernel/contract/exchange.js'
import type { Kernel } from '../../../kernel/contract/kernel.js'
import { GatewayError } from '../../../kernel/contract/errors.js'
import type { ModelConfig } from '../../../schemas/models.schema.js'
import type { RedisService } from '../../../kernel/contract/redis.js'
import { Redis } from 'ioredis'

const test = suite('plugin response-cache')
const alice: Principal = { keyId: 'alice', group: 'research', legacy: false }
const bob: Principal = { keyId: 'bob', group: 'sales', legacy: false }
const NOW = Date.UTC(2026, 4, 14, 12)

const question = (text = 'What is a sluice?') => ({
  model: 'sim-chat',
  messages: [{ role: 'user', content: text }],
  max_tokens: 50,
  temperature: 0,
})

const completion = (text: string, finish = 'stop') => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'sim-instruct-8b',
  choices: [{ index: 0, message: { role: 'assistant', content: text }, logprobs: null, finish_reason: finish }],
  usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17, prompt_tokens_details: { cached_tokens: 0 } },
})

/** The model step's stream of a two-word answer, as the backend relays it (mostly unparsed text). */
function streamOf(words: string[], includeUsage: boolean): StreamEvent[] {
  const head = { id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 1_700_000_001, model: 'sim-instruct-8b' }
  const chunks: StreamEvent[] = [
    {
      ...head,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
    },
    ...words.map((w) => ({
      ...head,
      choices: [{ index: 0, delta: { content: w }, logprobs: null, finish_reason: null }],
    })),
    { ...head, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }] },
  ]
  if (includeUsage)
    chunks.push({ ...head, choices: [], usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 } })
  return chunks
}

async function* events(items: StreamEvent[], failAfter?: number): AsyncGenerator<StreamEvent | SerializedEvent> {
  let n = 0
  for (const item of items) {
    if (failAfter !== undefined && n++ === failAfter)
      throw new GatewayError(502, 'upstream stream ended before it was complete')
    yield new SerializedEvent(JSON.stringify(item))
  }
}

/** sim-chat-instruct, opted in to the cache as the test says. */
function onModel(kernel: Kernel, cache: ModelConfig['cache']) {
  return { model: { requested: 'sim-chat', model: { ...kernel.catalog.model('sim-chat-instruct')!, cache } } }
}

interface Call {
  body?: unknown
  principal?: Principal
  headers?: Record<string, string>
  cache?: ModelConfig['cache']
  next?: Scenario['next']
  options?: Record<string, unknown>
}

/** A run of the step on `kernel`; the fake model step answers `answer` unless the call says otherwise. */
function call(kernel: Kernel, c: Call = {}) {
  return runPlugin(responseCache, c.options ?? {}, {
    kernel,
    body: c.body ?? question(),
    principal: c.principal ?? alice,
    headers: c.headers,
    state: onModel(kernel, 'cache' in c ? c.cache : true),
    next:
      c.next ??
      ((ex: Exchange) => {
        answeredWith(ex, 'sim-chat-instruct', { prompt: 12, completion: 5, upstreamModel: 'sim-instruct-8b' })
        ex.reply = reply.json(completion('A gate that holds water.'))
      }),
  })
}

const cacheHeader = (run: { ex: Exchange }) => run.ex.headers.get('x-gateway-cache')

test('bad options are refused as at load', async () => {
  try {
    await setupPlugin(responseCache, { max_entries: 0 })
    assert.unreachable()
  } catch (err) {
    assert.match(String(err), /bad options/)
  }
})

test('a miss goes on and keeps the answer; the same request is then a hit: no model step, the tokens told, marked cached', async () => {
  const kernel = makeKernel()
  const first = await call(kernel)
  assert.is(first.nextCalled, true)
  assert.is(cacheHeader(first), 'miss')
  assert.is(first.ex.usage.cached, false)

  const second = await call(kernel, { next: () => assert.unreachable('the model step must not run on a hit') })
  assert.is(second.nextCalled, false)
  assert.is(cacheHeader(second), 'hit')
  assert.equal((second.reply as { body: unknown }).body, completion('A gate that holds water.'))
  assert.is(second.ex.usage.cached, true)
  assert.is(second.ex.usage.reached, false, 'no model server was called')
  assert.is(second.ex.usage.toldModel, 'sim-chat-instruct')
  const told = second.ex.usage.told()
  assert.equal([told.inputTokens, told.outputTokens, told.source], [12, 5, 'reported'])
  assert.equal(second.ex.usage.used().source, 'none', 'nothing of its own to charge')
  assert.equal(second.outcome, { kind: 'done', status: 200 })
  await closePluginStates(kernel)
})

test('a streamed request is answered from a whole answer as a stream, with usage when asked', async () => {
  const kernel = makeKernel()
  await call(kernel)
  const streamed = await call(kernel, {
    body: { ...question(), stream: true, stream_options: { include_usage: true } },
    next: () => assert.unreachable(),
  })
  assert.is(cacheHeader(streamed), 'hit')
  assert.is(streamed.reply?.kind, 'events')
  assert.is((streamed.reply as { terminator?: string }).terminator, '[DONE]')
  const chunks = streamed.events!
  assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk'))
  const text = chunks.map((c) => (c.choices as { delta?: { content?: string } }[])[0]?.delta?.content ?? '').join('')
  assert.is(text, 'A gate that holds water.')
  assert.equal(
    chunks.map((c) => (c.choices as { finish_reason?: unknown }[])[0]?.finish_reason ?? null).filter(Boolean),
    ['stop'],
  )
  assert.equal(chunks.at(-1), {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'sim-instruct-8b',
    choices: [],
    usage: completion('').usage,
  })

  const plain = await call(kernel, { body: { ...question(), stream: true }, next: () => assert.unreachable() })
  assert.ok(
    plain.events!.every((c) => (c.choices as unknown[]).length > 0),
    'no usage chunk unless stream_options.include_usage',
  )
  await closePluginStates(kernel)
})

test('a streamed miss is relayed untouched and kept, put together as the whole completion', async () => {
  const kernel = makeKernel()
  const source = streamOf(['Hold ', 'water.'], false)
  const first = await call(kernel, {
    body: { ...question(), stream: true },
    next: (ex) => {
      answeredWith(ex, 'sim-chat-instruct', { prompt: 9, completion: 2 })
      ex.reply = reply.events(events(source), { terminator: '[DONE]' })
    },
  })
  assert.is(cacheHeader(first), 'miss')
  assert.equal(first.events, source, 'the client got the stream as the model step sent it')

  const whole = await call(kernel, { next: () => assert.unreachable() })
  assert.is(cacheHeader(whole), 'hit')
  assert.equal((whole.reply as { body: unknown }).body, {
    id: 'chatcmpl-2',
    object: 'chat.completion',
    created: 1_700_000_001,
    model: 'sim-instruct-8b',
    choices: [
      { index: 0, message: { role: 'assistant', content: 'Hold water.' }, logprobs: null, finish_reason: 'stop' },
    ],
    // The stream carried no usage (the client did not ask): what the client was told stands in.
    usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11, prompt_tokens_details: { cached_tokens: 0 } },
  })
  await closePluginStates(kernel)
})

test('the key ignores delivery (stream, user, key order) but not what changes the answer', async () => {
  const kernel = makeKernel()
  await call(kernel)
  const reordered = await call(kernel, {
    body: { temperature: 0, max_tokens: 50, user: 'someone', messages: question().messages, model: 'sim-chat' },
    next: () => assert.unreachable(),
  })
  assert.is(cacheHeader(reordered), 'hit')
  const family = await call(kernel, {
    body: { ...question(), model: 'sim-chat-instruct' },
    next: () => assert.unreachable(),
  })
  assert.is(cacheHeader(family), 'hit', 'keyed by the model that answers, not the name sent')
  for (const changed of [
    { ...question(), temperature: 0.7 },
    { ...question(), max_tokens: 51 },
    question('What is a lock?'),
    { ...question(), tools: [{ type: 'function', function: { name: 'f' } }] },
  ]) {
    const run = await call(kernel, { body: changed })
    assert.is(cacheHeader(run), 'miss', JSON.stringify(changed))
    assert.is(run.nextCalled, true)
  }
  const forwarded = await call(kernel, { headers: { 'x-sim-ttft-ms': '5' } })
  assert.is(cacheHeader(forwarded), 'miss', 'headers forwarded to the model server are part of the key')
  const noBoons = await call(kernel, { headers: { 'x-gateway-boons': 'off' } })
  assert.is(cacheHeader(noBoons), 'miss', 'add-ons off is another answer')
  await closePluginStates(kernel)
})

test("another group's request misses", async () => {
  const kernel = makeKernel()
  await call(kernel)
  const other = await call(kernel, { principal: bob })
  assert.is(cacheHeader(other), 'miss')
  assert.is(other.nextCalled, true)
  const sameGroup = await call(kernel, {
    principal: { ...bob, keyId: 'carol', group: 'research' },
    next: () => assert.unreachable(),
  })
  assert.is(cacheHeader(sameGroup), 'hit', 'keys of one group share answers')
  await closePluginStates(kernel)
})

test('x-gateway-cache: off skips it; a model without cache never uses it; opt_in needs on; other values are 400', async () => {
  const kernel = makeKernel()
  await call(kernel)
  const off = await call(kernel, { headers: { 'x-gateway-cache': 'off' } })
  assert.is(off.nextCalled, true)
  assert.is(cacheHeader(off), undefined, 'no header when the cache did not apply')

  const notOptedIn = await call(kernel, { cache: undefined, headers: { 'x-gateway-cache': 'on' } })
  assert.is(notOptedIn.nextCalled, true)
  assert.is(cacheHeader(notOptedIn), undefined)

  const optIn = { requests: 'opt_in' } as const
  const quiet = await call(kernel, { cache: optIn, body: question('opt in?') })
  assert.is(cacheHeader(quiet), undefined, 'opt_in: a request without the header does not use it')
  const asked = await call(kernel, { cache: optIn, body: question('opt in?'), headers: { 'x-gateway-cache': 'ON' } })
  assert.is(cacheHeader(asked), 'miss')
  const again = await call(kernel, {
    cache: optIn,
    body: question('opt in?'),
    headers: { 'x-gateway-cache': 'on' },
    next: () => assert.unreachable(),
  })
  assert.is(cacheHeader(again), 'hit')

  const bad = await call(kernel, { headers: { 'x-gateway-cache': 'sometimes' } })
  assert.is(bad.error?.status, 400)
  assert.is(bad.nextCalled, false)
  assert.is(
    bad.rendered?.body,
    JSON.stringify({ error: { message: 'x-gateway-cache must be on or off', type: 'gateway_error' } }),
  )
  await closePluginStates(kernel)
})

test('an answer expires after its TTL, by the kernel clock (the model entry’s ttl_s, else the route’s)', async () => {
  let clock = NOW
  const kernel = makeKernel({ now: () => clock })
  await call(kernel, { cache: { ttl_s: 60 } })
  clock += 59_999
  assert.is(cacheHeader(await call(kernel, { cache: { ttl_s: 60 }, next: () => assert.unreachable() })), 'hit')
  clock += 1
  const expired = await call(kernel, { cache: { ttl_s: 60 } })
  assert.is(cacheHeader(expired), 'miss')
  assert.is(expired.nextCalled, true)

  clock += 1_000_000
  await call(kernel, { options: { ttl_s: 10 } }) // cache: true takes the route's ttl_s
  clock += 10_000
  assert.is(cacheHeader(await call(kernel, { options: { ttl_s: 10 } })), 'miss')
  await closePluginStates(kernel)
})

test('never kept: errors, non-200 answers, cut streams, and answers a budget cut short', async () => {
  const kernel = makeKernel()
  const failing = await call(kernel, {
    next: () => {
      throw new GatewayError(503, 'model server unavailable')
    },
  })
  assert.is(failing.error?.status, 503)
  const status = await call(kernel, {
    next: (ex) => {
      answeredWith(ex, 'sim-chat-instruct', { prompt: 1, completion: 1 })
      ex.reply = reply.json(completion('partial'), 206)
    },
  })
  assert.is(status.reply?.status, 206)
  assert.is(cacheHeader(await call(kernel)), 'miss', 'neither was kept')

  const cutBody = { ...question('cut'), stream: true }
  const cut = await call(kernel, {
    body: cutBody,
    next: (ex) => {
      answeredWith(ex, 'sim-chat-instruct', { prompt: 9, completion: 1 })
      ex.reply = reply.events(events(streamOf(['Hold ', 'water.'], false), 2), { terminator: '[DONE]' })
    },
  })
  assert.is(cut.error?.status, 502)
  const afterCut = await call(kernel, { body: cutBody })
  assert.is(cacheHeader(afterCut), 'miss', 'a cut stream is not kept')

  const budgeted = question('long')
  const short = await call(kernel, {
    body: budgeted,
    next: (ex) => {
      ex.usage.limitOutput(10) // a budget afforded 10 of the 50 asked
      answeredWith(ex, 'sim-chat-instruct', { prompt: 5, completion: 10 })
      ex.reply = reply.json(completion('cut at ten', 'length'))
    },
  })
  assert.is(cacheHeader(short), 'miss')
  assert.is(cacheHeader(await call(kernel, { body: budgeted })), 'miss', 'an answer a budget cut short is not kept')
  await closePluginStates(kernel)
})

test('n > 1: every choice is kept and replayed', async () => {
  const kernel = makeKernel()
  const head = { id: 'chatcmpl-3', object: 'chat.completion.chunk', created: 1, model: 'sim-instruct-8b' }
  const choice = (index: number, delta: unknown, finish: string | null) => ({
    ...head,
    choices: [{ index, delta, logprobs: null, finish_reason: finish }],
  })
  const body = { ...question('two'), n: 2, stream: true }
  await call(kernel, {
    body,
    next: (ex) => {
      answeredWith(ex, 'sim-chat-instruct', { prompt: 9, completion: 4 })
      ex.reply = reply.events(
        events([
          choice(0, { role: 'assistant', content: '' }, null),
          choice(1, { role: 'assistant', content: '' }, null),
          choice(0, { content: 'one' }, null),
          choice(1, { content: 'two' }, null),
          choice(
            1,
            { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a"' } }] },
            null,
          ),
          choice(1, { tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }, null),
          choice(0, {}, 'stop'),
          choice(1, {}, 'tool_calls'),
        ]),
        { terminator: '[DONE]' },
      )
    },
  })
  const whole = await call(kernel, { body: { ...body, stream: false }, next: () => assert.unreachable() })
  assert.equal((whole.reply as { body: { choices: unknown } }).body.choices, [
    { index: 0, message: { role: 'assistant', content: 'one' }, logprobs: null, finish_reason: 'stop' },
    {
      index: 1,
      message: {
        role: 'assistant',
        content: 'two',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
      },
      logprobs: null,
      finish_reason: 'tool_calls',
    },
  ])
  await closePluginStates(kernel)
})

test('bounded: an answer over max_entry_bytes is served but not kept; past max_entries the least recently used goes', async () => {
  const kernel = makeKernel()
  const big = 'x'.repeat(2048)
  const large = await call(kernel, {
    body: question('big'),
    options: { max_entry_bytes: 1024 },
    next: (ex) => {
      answeredWith(ex, 'sim-chat-instruct', { prompt: 1, completion: 600 })
      ex.reply = reply.json(completion(big))
    },
  })
  assert.is((large.reply as { body: ReturnType<typeof completion> }).body.choices[0]!.message.content, big)
  assert.is(cacheHeader(await call(kernel, { body: question('big'), options: { max_entry_bytes: 1024 } })), 'miss')

  const options = { max_entries: 2 }
  await call(kernel, { body: question('a'), options })
  await call(kernel, { body: question('b'), options })
  assert.is(cacheHeader(await call(kernel, { body: question('a'), options })), 'hit', 'a is now the most recent')
  await call(kernel, { body: question('c'), options }) // b goes
  assert.is(cacheHeader(await call(kernel, { body: question('a'), options })), 'hit')
  assert.is(cacheHeader(await call(kernel, { body: question('c'), options })), 'hit')
  assert.is(cacheHeader(await call(kernel, { body: question('b'), options })), 'miss')
  await closePluginStates(kernel)
})

/** The deployment's Redis as the kernel would hand it, over a client the test made. */
function redisService(client: Redis): RedisService & { close(): Promise<void> } {
  const unused = () => {
    throw new Error('not used by the response cache')
  }
  return {
    client,
    prefix: 'test-cache:',
    leaseMs: 1000,
    turn: { define: unused, onFlush: unused, wake: unused, add: unused, flush: unused },
    connect: unused,
    ping: unused,
    close: async () => undefined, // the test disconnects its clients itself
  }
}

test('a Redis that is down or silent is a miss, never an error: the request is served, a warning logged', async () => {
  // Down: nothing listens, and commands fail at once.
  const down = new Redis({ port: 9, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 })
  // Silent: accepts the connection and never answers, so only the step's own wait ends a command.
  const silent = net.createServer(() => undefined)
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  const port = (silent.address() as net.AddressInfo).port
  const hung = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: null })
  for (const client of [down, hung]) client.on('error', () => undefined)
  try {
    for (const client of [down, hung]) {
      const kernel = makeKernel({ services: { redis: redisService(client) } })
      const logged = harnessLogs.length
      for (let i = 0; i < 2; i++) {
        const run = await call(kernel, { options: { redis_timeout_ms: 20 } })
        assert.is(run.nextCalled, true)
        assert.is(run.reply?.status, 200)
        assert.is(cacheHeader(run), 'miss')
      }
      const warnings = harnessLogs.slice(logged).filter((l) => l.includes('response cache'))
      assert.ok(
        warnings.some((l) => l.includes('lookup failed')) && warnings.some((l) => l.includes('not kept')),
        warnings.join('\n'),
      )
      assert.not.ok(warnings.join('').includes('What is a sluice'), 'no request text in the log')
      await closePluginStates(kernel)
    }
  } finally {
    down.disconnect()
    hung.disconnect()
    silent.close()
  }
})

test.run()
