import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import backend from '../../../plugins/backend/index.js'
import { configDirWith, makeKernel, runPlugin } from '../../../bin/testing/harness.js'
import { startFakeUpstream, sse, type FakeUpstream } from '../../support/fake-upstream.js'
import type { Kernel } from '../../../kernel/contract/kernel.js'
import type { ExchangeState } from '../../../kernel/contract/exchange.js'

const test = suite('plugin backend')
let upstream: FakeUpstream
let kernel: Kernel
let state: () => ExchangeState

test.before(async () => {
  upstream = await startFakeUpstream()
  // The demo catalog's `embedded` backend points at the fake server.
  // Group `testers` may drive the server with forwarded headers; the demo group may not.
  const configDir = configDirWith({
    'keys.yaml':
      'groups:\n  demo: {}\n  testers: { forward_headers: true }\nkeys:\n  - { id: demo, group: demo, demo: true }\n',
  })
  kernel = makeKernel({ simulatorUrl: upstream.url, configDir })
  state = () => ({ model: { requested: 'sim-vision', model: kernel.catalog.model('sim-vision')! } })
})
test.after(async () => upstream.close())

const completion = {
  id: 'c1',
  object: 'chat.completion',
  model: 'sim-vision-7b',
  choices: [
    { index: 0, message: { role: 'assistant', content: 'hi', reasoning_content: 'think' }, finish_reason: 'stop' },
  ],
  usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7, prompt_tokens_details: null },
}

test('sends the served name upstream and normalizes reasoning_content and usage', async () => {
  upstream.handle((_req, _body, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion)),
  )
  const run = await runPlugin(
    backend,
    { endpoint: 'chat' },
    { kernel, state: state(), body: { model: 'sim-vision', messages: [{ role: 'user', content: 'x' }] } },
  )
  assert.is(run.error, undefined)
  const sent = upstream.received.at(-1)!
  assert.is(sent.path, '/v1/chat/completions')
  assert.is((sent.body as { model: string }).model, 'sim-vision-7b')
  const body = (run.reply as { body: typeof completion }).body
  const message = body.choices[0]!.message as Record<string, unknown>
  assert.is(message.reasoning, 'think')
  assert.not.ok('reasoning_content' in message)
  assert.equal(body.usage.prompt_tokens_details, { cached_tokens: 0 })
  assert.is(run.ex.usage.used().inputTokens + run.ex.usage.used().outputTokens, 7)
  assert.is(run.ex.usage.upstreamModel, 'sim-vision-7b')
})

test("only the backend's forward_headers reach the model server, and only from a group allowed to send them", async () => {
  upstream.handle((_req, _body, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion)),
  )
  const headers = { 'x-sim-stall-ms': '0', 'x-not-listed': 'secret', cookie: 'c=1' }
  await runPlugin(
    backend,
    {},
    {
      kernel,
      state: state(),
      principal: { keyId: 't', group: 'testers', legacy: false },
      headers,
      body: { messages: [] },
    },
  )
  const sent = upstream.received.at(-1)!.headers
  assert.is(sent['x-sim-stall-ms'], '0')
  assert.is(sent['x-not-listed'], undefined)
  assert.is(sent.cookie, undefined)
  // A tenant's control headers stay at the door (forward_headers is off by default).
  await runPlugin(
    backend,
    {},
    {
      kernel,
      state: state(),
      principal: { keyId: 'demo', group: 'demo', legacy: false },
      headers,
      body: { messages: [] },
    },
  )
  assert.is(upstream.received.at(-1)!.headers['x-sim-stall-ms'], undefined)
})

test('a nested upstream error passes through with its status and message', async () => {
  upstream.handle((_req, _b, res) =>
    res.writeHead(400, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        error: { message: "This model's maximum context length is 4096 tokens.", type: 'BadRequestError', code: 400 },
      }),
    ),
  )
  const run = await runPlugin(backend, {}, { kernel, state: state(), body: { messages: [] } })
  assert.is(run.error?.status, 400)
  assert.is(run.error?.message, "This model's maximum context length is 4096 tokens.")
})

test('a flat (SGLang) error and a TGI error pass through too', async () => {
  upstream.handle((_req, _b, res) =>
    res.writeHead(422, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        object: 'error',
        message: 'Failed to fetch media from URL',
        type: 'BadRequestError',
        code: 422,
      }),
    ),
  )
  let run = await runPlugin(backend, {}, { kernel, state: state(), body: { messages: [] } })
  assert.is(run.error?.status, 422)
  assert.is(run.error?.message, 'Failed to fetch media from URL')
  upstream.handle((_req, _b, res) =>
    res.writeHead(422).end(JSON.stringify({ error: 'Input validation error', error_type: 'validation' })),
  )
  run = await runPlugin(backend, {}, { kernel, state: state(), body: { messages: [] } })
  assert.is(run.error?.message, 'Input validation error')
})

test('an unreachable server: 502 upstream request failed', async () => {
  const k = makeKernel({ simulatorUrl: 'http://127.0.0.1:1' })
  const run = await runPlugin(
    backend,
    {},
    {
      kernel: k,
      state: { model: { requested: 'sim-vision', model: k.catalog.model('sim-vision')! } },
      body: { messages: [] },
    },
  )
  assert.is(run.error?.status, 502)
  assert.is(run.error?.message, 'upstream request failed')
})

const chunk = (delta: object, extra: object = {}) => ({
  id: 's',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'sim-vision-7b',
  choices: [{ index: 0, delta, finish_reason: null }],
  ...extra,
})

test('a stream is relayed event by event; usage is asked upstream but dropped when the client did not ask', async () => {
  upstream.handle((_req, _b, res) =>
    sse(res, [
      chunk({ role: 'assistant', content: '' }),
      chunk({ reasoning_content: 'hmm' }),
      chunk({ content: 'Hi' }),
      { id: 's', choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } },
      '[DONE]',
    ]),
  )
  const run = await runPlugin(backend, {}, { kernel, state: state(), body: { stream: true, messages: [] } })
  assert.is(run.error, undefined)
  assert.equal((upstream.received.at(-1)!.body as { stream_options: unknown }).stream_options, { include_usage: true })
  assert.is(run.events?.length, 3)
  assert.is((run.events![1]!.choices as { delta: { reasoning?: string } }[])[0]!.delta.reasoning, 'hmm')
  assert.ok(run.events!.every((e) => !('usage' in e)))
  assert.is(run.ex.usage.used().inputTokens + run.ex.usage.used().outputTokens, 5)
  assert.is(run.ex.usage.streamed, 2, 'the reasoning and the content piece; not the empty role chunk')
  assert.is(run.outcome?.kind, 'done')
})

test('plain events pass through as the server wrote them; the ones that need work are still normalized', async () => {
  const plain = (content: string) => JSON.stringify(chunk({ content }))
  upstream.handle((_req, _b, res) =>
    sse(res, [
      chunk({ role: 'assistant', content: '' }),
      plain('Hello'),
      '{"id": "s", "choices": [{"index": 0, "delta": {"content": " spaced"}}]}',
      chunk({ reasoning_content: 'late thought' }),
      chunk({ content: 'he said "error" and "usage"' }),
      { id: 's', choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } },
      '[DONE]',
    ]),
  )
  const run = await runPlugin(backend, {}, { kernel, state: state(), body: { stream: true, messages: [] } })
  assert.is(run.error, undefined)
  const deltas = run.events!.map((e) => (e.choices as { delta: Record<string, unknown> }[])[0]!.delta)
  assert.equal(deltas, [
    { role: 'assistant', content: '' },
    { content: 'Hello' },
    { content: ' spaced' },
    { reasoning: 'late thought' },
    { content: 'he said "error" and "usage"' },
  ])
  assert.is(run.ex.usage.streamed, 4)
  assert.is(run.ex.usage.used().inputTokens + run.ex.usage.used().outputTokens, 7)
  assert.type(run.ex.usage.firstTokenAt, 'number')
})

test('with include_usage the usage chunk reaches the client last', async () => {
  upstream.handle((_req, _b, res) =>
    sse(res, [
      chunk({ content: 'Hi' }),
      { id: 's', choices: [], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } },
      '[DONE]',
    ]),
  )
  const run = await runPlugin(
    backend,
    {},
    { kernel, state: state(), body: { stream: true, stream_options: { include_usage: true }, messages: [] } },
  )
  assert.is(run.events?.length, 2)
  assert.equal((run.events![1]!.usage as { total_tokens: number }).total_tokens, 4)
  assert.not.ok('usage' in run.events![0]!, "vLLM's shape: only the last chunk carries usage")
})

test('a server that streams past max_tokens is cut there: a length end, nothing past the limit relayed or charged', async () => {
  const pieces = Array.from({ length: 50 }, (_, i) => chunk({ content: `w${i} ` }))
  upstream.handle((_req, _b, res) =>
    sse(res, [
      chunk({ role: 'assistant', content: '' }),
      ...pieces,
      { id: 's', choices: [], usage: { prompt_tokens: 3, completion_tokens: 50, total_tokens: 53 } },
      '[DONE]',
    ]),
  )
  const run = await runPlugin(
    backend,
    {},
    { kernel, state: state(), body: { stream: true, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] } },
  )
  assert.is(run.error, undefined)
  const contents = run
    .events!.map((e) => (e.choices as { delta: { content?: string } }[])[0]?.delta.content)
    .filter((c) => c)
  assert.is(contents.length, 10)
  assert.is((run.events!.at(-1)!.choices as { finish_reason: string }[])[0]!.finish_reason, 'length')
  assert.is(run.ex.usage.used().outputTokens, 10)
  assert.is(run.outcome?.kind, 'done')
})

test('a stream cut before [DONE] fails with 502', async () => {
  upstream.handle((_req, _b, res) => sse(res, [chunk({ content: 'Hi' }), chunk({ content: ' there' })], false))
  const run = await runPlugin(backend, {}, { kernel, state: state(), body: { stream: true, messages: [] } })
  assert.is(run.events?.length, 2)
  assert.is(run.ex.usage.streamed, 2, 'what streamed before the cut is counted for budget, queue and records')
  assert.is(run.error?.status, 502)
  assert.is(run.outcome?.kind, 'failed')
})

test('an error event mid-stream fails the stream with its message', async () => {
  upstream.handle((_req, _b, res) =>
    sse(res, [chunk({ content: 'Hi' }), { error: { message: 'engine died', code: 500 } }, '[DONE]']),
  )
  const run = await runPlugin(backend, {}, { kernel, state: state(), body: { stream: true, messages: [] } })
  assert.is(run.error?.status, 502)
  assert.is(run.error?.message, 'engine died')
})

test('a completion over 1 MiB is read off the event loop: normalized and counted as a small one', async () => {
  const long = 'word '.repeat(300_000)
  const big = {
    ...completion,
    choices: [{ ...completion.choices[0]!, message: { ...completion.choices[0]!.message, content: long } }],
  }
  upstream.handle((_req, _body, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(big)),
  )
  const run = await runPlugin(
    backend,
    { endpoint: 'chat' },
    { kernel, state: state(), body: { model: 'sim-vision', messages: [{ role: 'user', content: long }] } },
  )
  assert.is(run.error, undefined)
  assert.is((upstream.received.at(-1)!.body as { messages: { content: string }[] }).messages[0]!.content, long)
  const body = (run.reply as { body: typeof completion }).body
  const message = body.choices[0]!.message as Record<string, unknown>
  assert.is(message.content, long)
  assert.is(message.reasoning, 'think')
  assert.not.ok('reasoning_content' in message)
  assert.equal(body.usage.prompt_tokens_details, { cached_tokens: 0 })
  assert.is(run.ex.usage.used().inputTokens + run.ex.usage.used().outputTokens, 7)
  assert.is(run.ex.usage.upstreamModel, 'sim-vision-7b')
})

test('a completion over 1 MiB that is not JSON: 502, as a small one', async () => {
  upstream.handle((_req, _body, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(`{"choices": [${'"x",'.repeat(300_000)}`),
  )
  const run = await runPlugin(backend, { endpoint: 'chat' }, { kernel, state: state(), body: { messages: [] } })
  assert.is(run.error?.status, 502)
  assert.is(run.error?.message, 'upstream request failed')
})

test.run()
