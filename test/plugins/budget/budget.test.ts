import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import budget from '../../../plugins/budget/index.js'
import {
  answeredWith,
  configDirWith,
  makeKernel,
  runPlugin,
  setupPlugin,
  stateOf,
} from '../../../bin/testing/harness.js'
import { formatHash, hashSecret } from '../../../protocols/credentials/secrets.js'
import { reply } from '../../../kernel/contract/reply.js'
import type { Exchange, Principal } from '../../../kernel/contract/exchange.js'
import type { Kernel } from '../../../kernel/contract/kernel.js'
import { termPeriod } from '../../../plugins/budget/terms.js'

const test = suite('plugin budget')

// Round prices: 1 per prompt token, 2 per reply token (models.yaml prices are per million).
const models = `default_model: m
backends: { sim: { url: embedded, capacity: 8 } }
models:
  - { id: m, model_type: chat, backend: sim, context_window: 100000, prices: { prompt: 1000000, completion: 2000000 } }
  - { id: free, model_type: chat, backend: sim }
`
const h = (s: string) => formatHash(hashSecret(s))
const keys = `groups:
  open: {}
  capped: { budget: { amount: 1000 } }
  windowed: { tokens_per_minute: 500 }
keys:
  - { id: demo, group: open, demo: true }
  - { id: k-term, group: open, budget: { amount: 300, term: day }, hash: "${h('a')}" }
  - { id: k-group, group: capped, hash: "${h('b')}" }
  - { id: k-tpm, group: open, tokens_per_minute: 200, hash: "${h('c')}" }
  - { id: k-gtpm, group: windowed, hash: "${h('d')}" }
`
const configDir = configDirWith({ 'models.yaml': models, 'keys.yaml': keys })
const NOW = Date.UTC(2026, 4, 14, 12)
const fresh = () => makeKernel({ configDir, now: () => NOW })
const who = (keyId: string, group: string): Principal => ({ keyId, group, legacy: false })
const onModel = (kernel: Kernel, id = 'm') => ({ model: { requested: id, model: kernel.catalog.model(id)! } })
// 8 + 8 per message + 5 bytes: a prompt estimate of 21 tokens.
const hello = (extra: Record<string, unknown> = {}) => ({
  model: 'm',
  messages: [{ role: 'user', content: 'hello' }],
  ...extra,
})
const answered = (prompt: number, completion: number) => (ex: Exchange) => {
  answeredWith(ex, 'm', { prompt, completion })
  ex.reply = reply.json({ ok: true })
}
/** The plugin's ledger on this kernel (its `open` state). */
const ledgerOf = async (kernel: Kernel) => (await stateOf(budget, kernel)).ledger
const termUsed = async (kernel: Kernel, scope: string, term: 'day' | 'month' = 'day') =>
  (await ledgerOf(kernel)).used(
    `budget:term:${scope}:${termPeriod(term, NOW).id}`,
    { kind: 'term', expiresAt: NOW + 1e9 },
    NOW,
  )
const windowUsed = async (kernel: Kernel, scope: string) =>
  (await ledgerOf(kernel)).used(`budget:tpm:${scope}`, { kind: 'sliding', ms: 60_000 }, NOW)

test('no budget on the key or its group: passes through untouched', async () => {
  const kernel = fresh()
  const body = hello()
  const run = await runPlugin(budget, {}, { kernel, body, principal: who('demo', 'open'), state: onModel(kernel) })
  assert.ok(run.nextCalled)
  assert.is(run.ex.state.budget, undefined)
  assert.equal(body, hello(), 'max_tokens not added')
})

test('reserves prompt and max_tokens, then settles to the usage reported', async () => {
  const kernel = fresh()
  let reservedDuring = -1
  const run = await runPlugin(
    budget,
    {},
    {
      kernel,
      body: hello({ max_tokens: 50 }),
      principal: who('k-term', 'open'),
      state: onModel(kernel),
      next: async (ex) => {
        reservedDuring = await termUsed(kernel, 'key:k-term')
        answered(15, 20)(ex)
      },
    },
  )
  assert.ok(run.nextCalled)
  assert.is(reservedDuring, 21 + 50 * 2, 'prompt estimate + max_tokens at their prices')
  assert.is(await termUsed(kernel, 'key:k-term'), 15 + 20 * 2, 'settled to what was used')
})

test('a request the budget cannot afford whole is shortened to what it affords', async () => {
  const kernel = fresh()
  const body = hello({ max_tokens: 1000 })
  const run = await runPlugin(
    budget,
    {},
    { kernel, body, principal: who('k-term', 'open'), state: onModel(kernel), next: answered(21, 139) },
  )
  assert.ok(run.nextCalled)
  // (300 - 21) / 2 = 139 reply tokens fit.
  assert.is((body as unknown as { max_tokens: number }).max_tokens, 139)
  assert.is(run.ex.headers.get('x-gateway-budget-max-tokens'), '139')
})

test('without max_tokens the ceiling is reserved and sent upstream', async () => {
  const kernel = fresh()
  const body = hello()
  await runPlugin(
    budget,
    { default_max_tokens: 64 },
    { kernel, body, principal: who('k-group', 'capped'), state: onModel(kernel), next: answered(21, 10) },
  )
  assert.is((body as unknown as { max_tokens: number }).max_tokens, 64)
  const viaCompletion = hello({ max_completion_tokens: 5000 })
  await runPlugin(
    budget,
    {},
    {
      kernel,
      body: viaCompletion,
      principal: who('k-group', 'capped'),
      state: onModel(kernel),
      next: answered(21, 10),
    },
  )
  assert.is(
    (viaCompletion as unknown as { max_completion_tokens: number }).max_completion_tokens,
    Math.floor((1000 - 41 - 21) / 2),
    'max_completion_tokens is the field lowered (41 spent before)',
  )
})

test('an exhausted key budget: 403 "api key term budget exhausted", and nothing is reserved', async () => {
  const kernel = fresh()
  await runPlugin(
    budget,
    {},
    {
      kernel,
      body: hello({ max_tokens: 140 }),
      principal: who('k-term', 'open'),
      state: onModel(kernel),
      next: answered(21, 139),
    },
  )
  const before = await termUsed(kernel, 'key:k-term')
  const run = await runPlugin(
    budget,
    {},
    { kernel, body: hello({ max_tokens: 100 }), principal: who('k-term', 'open'), state: onModel(kernel) },
  )
  assert.is(run.error?.status, 403)
  assert.is(run.error?.message, 'api key term budget exhausted')
  assert.not.ok(run.nextCalled)
  assert.is(await termUsed(kernel, 'key:k-term'), before)
})

test('an exhausted group budget: 403 "tenant term budget exhausted"', async () => {
  const kernel = fresh()
  await runPlugin(
    budget,
    {},
    {
      kernel,
      body: hello({ max_tokens: 5000 }),
      principal: who('k-group', 'capped'),
      state: onModel(kernel),
      next: answered(21, 489),
    },
  )
  const run = await runPlugin(
    budget,
    {},
    { kernel, body: hello({ max_tokens: 10 }), principal: who('k-group', 'capped'), state: onModel(kernel) },
  )
  assert.is(run.error?.status, 403)
  assert.is(run.error?.message, 'tenant term budget exhausted')
})

test('the per-minute token budget, of a key and of a group: 429 "token budget exceeded"', async () => {
  const kernel = fresh()
  const first = await runPlugin(
    budget,
    {},
    {
      kernel,
      body: hello({ max_tokens: 100 }),
      principal: who('k-tpm', 'open'),
      state: onModel(kernel),
      next: answered(21, 100),
    },
  )
  assert.ok(first.nextCalled)
  const second = await runPlugin(
    budget,
    {},
    {
      kernel,
      body: hello({ max_tokens: 100 }),
      principal: who('k-tpm', 'open'),
      state: onModel(kernel),
      next: answered(21, 58),
    },
  )
  assert.ok(second.nextCalled, '200 - 121 = 79 tokens left: shortened to 58, not refused')
  assert.is(second.ex.headers.get('x-gateway-budget-max-tokens'), '58')
  assert.is(await windowUsed(kernel, 'key:k-tpm'), 200)
  const third = await runPlugin(
    budget,
    {},
    { kernel, body: hello({ max_tokens: 100 }), principal: who('k-tpm', 'open'), state: onModel(kernel) },
  )
  assert.is(third.error?.status, 429)
  assert.is(third.error?.message, 'token budget exceeded')
  await runPlugin(
    budget,
    {},
    {
      kernel,
      body: hello({ max_tokens: 479 }),
      principal: who('k-gtpm', 'windowed'),
      state: onModel(kernel),
      next: answered(21, 479),
    },
  )
  const group = await runPlugin(
    budget,
    {},
    { kernel, body: hello({ max_tokens: 1 }), principal: who('k-gtpm', 'windowed'), state: onModel(kernel) },
  )
  assert.is(group.error?.message, 'token budget exceeded')
})

test('a stream that ends without a usage report is charged its prompt and the pieces streamed', async () => {
  const kernel = fresh()
  const run = await runPlugin(
    budget,
    {},
    {
      kernel,
      body: hello({ max_tokens: 100, stream: true }),
      principal: who('k-term', 'open'),
      state: onModel(kernel),
      next: (ex) => {
        ex.usage.model = 'm'
        ex.usage.firstTokenAt = NOW
        ex.reply = reply.events(
          (async function* () {
            for (let i = 0; i < 7; i++) {
              ex.usage.streamed++
              yield { choices: [{ index: 0, delta: { content: ' w' } }] }
            }
            throw new Error('cut')
          })(),
        )
      },
    },
  )
  assert.ok(run.error, 'the stream failed')
  assert.is(await termUsed(kernel, 'key:k-term'), 21 + 7 * 2)
})

test('a request that failed before any token is refunded', async () => {
  const kernel = fresh()
  const run = await runPlugin(
    budget,
    {},
    {
      kernel,
      body: hello({ max_tokens: 100 }),
      principal: who('k-term', 'open'),
      state: onModel(kernel),
      next: (ex) => {
        ex.usage.model = 'm'
        throw new Error('upstream 400')
      },
    },
  )
  assert.ok(run.error)
  assert.is(await termUsed(kernel, 'key:k-term'), 0)
})

test('a free model costs nothing against a term budget, but still counts tokens per minute', async () => {
  const kernel = fresh()
  const run = await runPlugin(
    budget,
    {},
    {
      kernel,
      body: hello({ model: 'free', max_tokens: 100 }),
      principal: who('k-tpm', 'open'),
      state: onModel(kernel, 'free'),
      next: answered(21, 30),
    },
  )
  assert.ok(run.nextCalled)
  assert.is(await windowUsed(kernel, 'key:k-tpm'), 51)
})

test('a term budget first seen starts from what the records say was spent this term', async () => {
  const kernel = fresh()
  const at = NOW - 3_600_000
  kernel.records.add({
    at,
    requestId: 'old',
    keyId: 'k-term',
    group: 'open',
    route: 'chat',
    modelRequested: 'm',
    model: 'm',
    upstreamModel: null,
    promptTokens: 100,
    completionTokens: 50,
    cachedTokens: 0,
    audioSeconds: 0,
    characters: 0,
    usageSource: 'reported',
    value: 240,
    status: 200,
    outcome: 'done',
    queueMs: 0,
    ttftMs: 1,
    totalMs: 2,
    parentRequestId: null,
    charged: 240,
    cached: false,
    fallbackFrom: null,
  })
  await kernel.records.flush()
  const run = await runPlugin(
    budget,
    {},
    {
      kernel,
      body: hello({ max_tokens: 100 }),
      principal: who('k-term', 'open'),
      state: onModel(kernel),
      next: answered(21, 10),
    },
  )
  assert.ok(run.nextCalled, '60 left: 21 for the prompt, 19 reply tokens')
  assert.is(run.ex.headers.get('x-gateway-budget-max-tokens'), '19')
})

test('options are validated like the loader does', async () => {
  for (const bad of [{ default_max_tokens: 0 }, { min_tokens: 'many' }, { colour: 'red' }]) {
    try {
      await setupPlugin(budget, bad, fresh())
      assert.unreachable(`accepted ${JSON.stringify(bad)}`)
    } catch (err) {
      assert.match(String(err), /bad options/)
    }
  }
})

test('term periods: day, ISO week, month, in UTC', () => {
  const t = Date.UTC(2026, 0, 1, 10) // a Thursday
  assert.equal(termPeriod('day', t), { id: '2026-01-01', start: Date.UTC(2026, 0, 1), end: Date.UTC(2026, 0, 2) })
  assert.equal(termPeriod('week', t), { id: '2026-W01', start: Date.UTC(2025, 11, 29), end: Date.UTC(2026, 0, 5) })
  assert.is(termPeriod('week', Date.UTC(2027, 0, 1)).id, '2026-W53')
  assert.is(termPeriod('week', Date.UTC(2026, 4, 14)).id, '2026-W20')
  assert.equal(termPeriod('month', t), { id: '2026-01', start: Date.UTC(2026, 0, 1), end: Date.UTC(2026, 1, 1) })
})

test.run()
