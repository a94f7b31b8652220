/**
 * A model server that returns more than `max_tokens` (a tool call that runs on, a server that
 * ignores the limit) cannot overrun a budget: the gateway never charges past what it reserved,
 * and cuts a stream at the limit. 200 concurrent requests against budgets that cover 20.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import OpenAI from 'openai'
import { startTestGateway, type TestGateway } from '../support/gateway.js'
import { keysFile, modelsWith } from '../support/deployment-files.js'
import { startFakeUpstream, sse, type FakeUpstream } from '../support/fake-upstream.js'
import { estimatePromptTokens } from '../../protocols/openai/token-estimate.js'
import type { UsageRecord } from '../../kernel/contract/records.js'

const test = suite('e2e a server past max_tokens cannot overrun a budget')
const MAX_TOKENS = 16
const OVERRUN = 1000
const message = { role: 'user' as const, content: 'call the tool' }
const tools = [
  { type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object', properties: {} } } },
]
const PROMPT = estimatePromptTokens({ messages: [message], tools }, { perMessage: 8, perImage: 1024 })
// Priced 1 per prompt token and 2 per reply token (prices are per million tokens).
const MAX_COST = PROMPT + 2 * MAX_TOKENS
const TERM_BUDGET = 20 * MAX_COST
const MINUTE_BUDGET = 20 * (PROMPT + MAX_TOKENS)

let upstream: FakeUpstream
let gw: TestGateway

/** A tool call whose arguments run on for OVERRUN tokens, whatever max_tokens said. */
function overrun(stream: boolean) {
  const call = (args: string) => ({
    index: 0,
    id: 'call_1',
    type: 'function',
    function: { name: 'lookup', arguments: args },
  })
  if (!stream) {
    return {
      id: 'c',
      object: 'chat.completion',
      created: 1,
      model: 'runaway',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: null, tool_calls: [call('{"q":"' + 'x'.repeat(OVERRUN) + '"}')] },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: PROMPT, completion_tokens: OVERRUN, total_tokens: PROMPT + OVERRUN },
    }
  }
  const chunk = (delta: object) => ({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'runaway',
    choices: [{ index: 0, delta, finish_reason: null }],
  })
  return [
    chunk({ role: 'assistant', tool_calls: [call('')] }),
    ...Array.from({ length: OVERRUN }, () => chunk({ tool_calls: [{ index: 0, function: { arguments: 'x' } }] })),
    {
      id: 'c',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'runaway',
      choices: [],
      usage: { prompt_tokens: PROMPT, completion_tokens: OVERRUN, total_tokens: PROMPT + OVERRUN },
    },
    '[DONE]',
  ]
}

test.before(async () => {
  upstream = await startFakeUpstream()
  upstream.handle((_req, body, res) => {
    const stream = (JSON.parse(body) as { stream?: boolean }).stream === true
    if (stream) sse(res, overrun(true) as (object | string)[])
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(overrun(false)))
  })
  gw = await startTestGateway({
    files: {
      'config/models.yaml': modelsWith({
        backends: { runaway: { url: upstream.url, capacity: 64 } },
        models: [
          {
            id: 'runaway',
            model_type: 'chat',
            backend: 'runaway',
            context_window: 32768,
            supports_function_calling: true,
            prices: { prompt: 1_000_000, completion: 2_000_000 },
          },
        ],
      }),
      'config/keys.yaml': keysFile({}, [
        { id: 'term-whole', group: 'demo', secret: 'sk-term-whole', budget: { amount: TERM_BUDGET, term: 'day' } },
        { id: 'term-stream', group: 'demo', secret: 'sk-term-stream', budget: { amount: TERM_BUDGET, term: 'day' } },
        { id: 'minute', group: 'demo', secret: 'sk-minute', tokens_per_minute: MINUTE_BUDGET },
      ]),
    },
  })
})
test.after(async () => {
  await gw.close()
  await upstream.close()
})

/** 200 requests at once with `key`; resolves to how many were served. */
async function burst(key: string, stream: boolean): Promise<number> {
  const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 })
  const served = await Promise.all(
    Array.from({ length: 200 }, async () => {
      try {
        if (!stream)
          await client.chat.completions.create({ model: 'runaway', messages: [message], tools, max_tokens: MAX_TOKENS })
        else
          for await (const _ of await client.chat.completions.create({
            model: 'runaway',
            messages: [message],
            tools,
            max_tokens: MAX_TOKENS,
            stream: true,
          }));
        return 1
      } catch (err) {
        assert.ok(
          err instanceof OpenAI.APIError && (err.status === 403 || err.status === 429),
          `unexpected ${String(err)}`,
        )
        return 0
      }
    }),
  )
  return served.reduce<number>((a, b) => a + b, 0)
}

async function records(keyId: string): Promise<UsageRecord[]> {
  await gw.generation().records.flush()
  return (await gw.generation().records.list({ from: 0, to: Date.now() + 1, keyId }, 1000)) as UsageRecord[]
}

test('whole replies 60 times past max_tokens: the term budget holds', async () => {
  const served = await burst('sk-term-whole', false)
  const spent = (await records('term-whole')).reduce((s, r) => s + r.value, 0)
  assert.ok(served >= 20, `${served} served`)
  assert.ok(spent <= TERM_BUDGET + 1e-9, `spent ${spent} of ${TERM_BUDGET}`)
})

test('a stream past max_tokens is cut at the limit: the term budget holds', async () => {
  const served = await burst('sk-term-stream', true)
  const rows = await records('term-stream')
  const spent = rows.reduce((s, r) => s + r.value, 0)
  assert.ok(served >= 20, `${served} served`)
  assert.ok(spent <= TERM_BUDGET + 1e-9, `spent ${spent} of ${TERM_BUDGET}`)
  assert.ok(
    rows.every((r) => r.completionTokens <= MAX_TOKENS),
    'no stream charged past its limit',
  )
})

test('the per-minute token budget holds too', async () => {
  const served = await burst('sk-minute', false)
  const used = (await records('minute')).reduce((s, r) => s + r.promptTokens + r.completionTokens, 0)
  assert.ok(served >= 20, `${served} served`)
  assert.ok(used <= MINUTE_BUDGET, `used ${used} tokens of ${MINUTE_BUDGET} a minute`)
})

test.run()
