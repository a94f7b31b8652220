import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import plugin from '../../../plugins/token-count/index.js'
import { makeKernel, runPlugin } from '../../../bin/testing/harness.js'
import { startFakeUpstream, type FakeUpstream } from '../../support/fake-upstream.js'
import { estimatePromptTokens, TOKENS_PER_MESSAGE } from '../../../protocols/openai/token-estimate.js'

const test = suite('plugin token-count')
let upstream: FakeUpstream
test.before(async () => void (upstream = await startFakeUpstream()))
test.after(() => upstream.close())

const body = {
  model: 'sim-chat-instruct',
  messages: [{ role: 'user', content: 'How long is this?' }],
  tools: [{ type: 'function', function: { name: 'f', parameters: {} } }],
}
const scenario = (simulatorUrl: string) => {
  const kernel = makeKernel({ simulatorUrl })
  return {
    kernel,
    body: structuredClone(body),
    state: { model: { requested: 'sim-chat-instruct', model: kernel.catalog.model('sim-chat-instruct')! } },
  }
}

test("the model server's /tokenize counts, with the served name, the messages and the tools", async () => {
  upstream.handle((_req, _body, res) =>
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end('{"count":42,"max_model_len":32768,"tokens":[],"token_strs":null}'),
  )
  const r = await runPlugin(plugin, {}, scenario(upstream.url))
  assert.equal((r.reply as { body: unknown }).body, { input_tokens: 42 })
  assert.is(r.ex.headers.get('x-gateway-token-count'), 'tokenizer')
  const sent = upstream.received.at(-1)!
  assert.is(sent.path, '/tokenize')
  assert.equal(sent.body, {
    model: 'sim-instruct-8b',
    messages: body.messages,
    add_generation_prompt: true,
    tools: body.tools,
  })
})

test('a long answer (every token id listed) has its count read; one without a count is a 502', async () => {
  const tokens = Array.from({ length: 50_000 }, (_, i) => i % 1000)
  const strs = tokens.map(() => 'count":1,')
  upstream.handle((_req, _body, res) =>
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ token_strs: strs, count: 50_000, max_model_len: 32768, tokens })),
  )
  const r = await runPlugin(plugin, { fallback: 'error' }, scenario(upstream.url))
  assert.equal((r.reply as { body: unknown }).body, { input_tokens: 50_000 })
  upstream.handle((_req, _body, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ tokens, counted: 7 })),
  )
  const bad = await runPlugin(plugin, { fallback: 'error' }, scenario(upstream.url))
  assert.is(bad.error?.status, 502)
})

test('a server without /tokenize: the estimate, and the header says so', async () => {
  upstream.handle((_req, _body, res) =>
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}'),
  )
  const r = await runPlugin(plugin, {}, scenario(upstream.url))
  const expected = estimatePromptTokens(body, { perMessage: TOKENS_PER_MESSAGE, perImage: 1024 })
  assert.equal((r.reply as { body: unknown }).body, { input_tokens: expected })
  assert.is(r.ex.headers.get('x-gateway-token-count'), 'estimate')
})

test('fallback: error passes the failure on (unreachable server: 502)', async () => {
  const r = await runPlugin(plugin, { fallback: 'error' }, scenario('http://127.0.0.1:1'))
  assert.is(r.error?.status, 502)
})

test.run()
