/**
 * Budgets end to end, with real clients over real sockets: 200 concurrent requests against a
 * budget that covers 20 of them spend no more than the budget (the usage records' sum says
 * so) and the rest get the spec's 403; the same for the per-minute token budget and its 429;
 * and the same with two Sluice processes sharing one Redis (and one PostgreSQL for records).
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import OpenAI from 'openai'
import pg from 'pg'
import { Redis } from 'ioredis'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { keysFile, modelsWith, serverWith } from '../support/deployment-files.js'
import { startReplica, type Replica } from '../support/replica.js'
import { POSTGRES_URL, REDIS_URL, uniqueName } from '../support/services.js'
import { suiteNeeding } from '../support/needs-server.js'
import { estimatePromptTokens } from '../../protocols/openai/token-estimate.js'
import type { UsageRecord } from '../../kernel/contract/records.js'

// A model priced 1 per prompt token and 2 per reply token (prices are per million tokens).
const models = modelsWith({
  models: [
    {
      id: 'sim-priced',
      model_type: 'chat',
      backend: 'sim',
      served_name: 'sim-instruct-8b',
      reported_name: 'sim-priced',
      context_window: 32768,
      prices: { prompt: 1_000_000, completion: 2_000_000 },
    },
  ],
})
const MAX_TOKENS = 16
const message = { role: 'user' as const, content: 'hi' }
// What one request can cost at most, as the budget plugin reserves it (default options).
const PROMPT = estimatePromptTokens({ messages: [message] }, { perMessage: 8, perImage: 1024 })
const MAX_COST = PROMPT * 1 + MAX_TOKENS * 2
const MAX_TOKENS_PER_REQUEST = PROMPT + MAX_TOKENS
const TERM_BUDGET = 20 * MAX_COST
const MINUTE_BUDGET = 20 * MAX_TOKENS_PER_REQUEST

const keys = keysFile({ small: { budget: { amount: 5 * MAX_COST } } }, [
  { id: 'term', group: 'demo', secret: 'sk-term', budget: { amount: TERM_BUDGET, term: 'day' } },
  { id: 'minute', group: 'demo', secret: 'sk-minute', tokens_per_minute: MINUTE_BUDGET },
  { id: 'tenant', group: 'small', secret: 'sk-tenant' },
])

interface Outcome {
  ok: number
  /** Requests served, per client (per process when the clients point at different ones). */
  okPerClient: number[]
  refused: Map<string, number>
}

// ignore_eos: every reply is max_tokens long, so a request costs nearly what it reserves, and a
// budget that did not hold across processes would show in the records (each process alone
// would let 20 through: about 40 × 39 = 1,560 spent of 1,000).
const params: OpenAI.ChatCompletionCreateParamsNonStreaming & { ignore_eos: boolean } = {
  model: 'sim-priced',
  messages: [message],
  max_tokens: MAX_TOKENS,
  ignore_eos: true,
}

/** Fires `n` chat requests at once, spread over the clients, and tallies the answers. */
async function burst(clients: OpenAI[], n: number): Promise<Outcome> {
  const refused = new Map<string, number>()
  const okPerClient = clients.map(() => 0)
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      try {
        await clients[i % clients.length]!.chat.completions.create(params)
        okPerClient[i % clients.length]!++
      } catch (err) {
        const e = err as InstanceType<typeof OpenAI.APIError>
        const label = `${e.status} ${(e.error as { message?: string } | undefined)?.message ?? e.message}`
        refused.set(label, (refused.get(label) ?? 0) + 1)
      }
    }),
  )
  return { ok: okPerClient.reduce((a, b) => a + b, 0), okPerClient, refused }
}

const sum = (records: UsageRecord[], f: (r: UsageRecord) => number) => records.reduce((s, r) => s + f(r), 0)

function checkTerm(outcome: Outcome, records: UsageRecord[], n: number): void {
  assert.ok(outcome.ok >= 20, `the budget covers 20 requests; ${outcome.ok} were served`)
  assert.equal(
    [...outcome.refused.keys()],
    ['403 api key term budget exhausted'],
    'every other request got the spec 403',
  )
  assert.is(outcome.ok + outcome.refused.get('403 api key term budget exhausted')!, n)
  assert.is(records.length, outcome.ok, 'one record per request served')
  const spent = sum(records, (r) => r.value)
  assert.ok(spent <= TERM_BUDGET + 1e-9, `records say ${spent} was spent of a budget of ${TERM_BUDGET}`)
  process.stdout.write(
    `\n  term: ${outcome.okPerClient.join(' + ')} served, ${n - outcome.ok} refused; records: ${records.length}, spent ${spent} of ${TERM_BUDGET}\n`,
  )
}

function checkMinute(outcome: Outcome, records: UsageRecord[], n: number): void {
  assert.ok(outcome.ok >= 20, `${outcome.ok} served`)
  assert.equal([...outcome.refused.keys()], ['429 token budget exceeded'])
  assert.is(outcome.ok + outcome.refused.get('429 token budget exceeded')!, n)
  const tokens = sum(records, (r) => r.promptTokens + r.completionTokens)
  assert.ok(tokens <= MINUTE_BUDGET, `records say ${tokens} tokens of a per-minute budget of ${MINUTE_BUDGET}`)
  process.stdout.write(
    `\n  minute: ${outcome.okPerClient.join(' + ')} served, ${n - outcome.ok} refused; records: ${records.length}, ${tokens} tokens of ${MINUTE_BUDGET}\n`,
  )
}

// ——— one process ———

const one = suite('e2e budgets: one process')
let gw: TestGateway
one.before(async () => {
  gw = await startTestGateway({
    simulatorLatency: { ttft_ms: 20, itl_ms: 2 },
    files: { 'config/models.yaml': models, 'config/keys.yaml': keys },
  })
})
one.after(async () => gw.close())
const recordsOf = (g: TestGateway, keyId: string) =>
  g.generation().records.list({ from: 0, to: Date.now() + 1, keyId }, 10_000)

one('200 concurrent requests against a term budget that covers 20: no overspend, the rest 403', async () => {
  const outcome = await burst([gw.openai('sk-term')], 200)
  checkTerm(outcome, await recordsOf(gw, 'term'), 200)
})

one(
  '200 concurrent requests against a per-minute token budget that covers 20: no overspend, the rest 429',
  async () => {
    const outcome = await burst([gw.openai('sk-minute')], 200)
    checkMinute(outcome, await recordsOf(gw, 'minute'), 200)
  },
)

one("a group's budget holds for its keys: 403 tenant term budget exhausted", async () => {
  const outcome = await burst([gw.openai('sk-tenant')], 50)
  assert.ok(outcome.ok >= 5)
  assert.equal([...outcome.refused.keys()], ['403 tenant term budget exhausted'])
  const spent = sum(await recordsOf(gw, 'tenant'), (r) => r.value)
  assert.ok(spent <= 5 * MAX_COST + 1e-9)
})

one('a key without budgets is not limited', async () => {
  const outcome = await burst([gw.openai(TEST_KEY)], 40)
  assert.is(outcome.ok, 40)
})

one.run()

// ——— two processes, one Redis ———

const two = suiteNeeding(['redis', 'postgres'], 'e2e budgets: two Sluice processes on one Redis')
let first: TestGateway | undefined
let replica: Replica | undefined
const schema = uniqueName('sluice_e2e')
const prefix = `${uniqueName('sluice-e2e')}:`

two.before(async () => {
  const stores = {
    redis_url: REDIS_URL,
    redis_prefix: prefix,
    postgres_url: POSTGRES_URL,
    postgres_schema: schema,
    records_flush_ms: 100,
  }
  first = await startTestGateway({
    simulatorLatency: { ttft_ms: 20, itl_ms: 2 },
    files: { 'config/models.yaml': models, 'config/keys.yaml': keys, 'config/server.yaml': serverWith({ stores }) },
  })
  replica = await startReplica({
    configDir: first.configDir,
    pipelinesDir: first.pipelinesDir,
    env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_LOG_LEVEL: 'warn' },
  })
})
two.after(async () => {
  await replica?.stop()
  await first?.close()
  if (!first) return
  const client = new pg.Client({ connectionString: POSTGRES_URL })
  await client.connect()
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  await client.end()
  const redis = new Redis(REDIS_URL)
  const stale = await redis.keys(`${prefix}*`)
  if (stale.length > 0) await redis.del(...stale)
  await redis.quit()
})

const clients = (secret: string) => [
  first!.openai(secret),
  new OpenAI({ apiKey: secret, baseURL: `${replica!.url}/v1`, maxRetries: 0, timeout: 30_000 }),
]

two('the term budget holds across both processes: no overspend, the rest 403', async () => {
  assert.is(first!.generation().redis ? 'redis' : 'memory', 'redis')
  const outcome = await burst(clients('sk-term'), 200)
  // Both processes write records to the one PostgreSQL; wait for the replica's batch.
  await new Promise((r) => setTimeout(r, 300))
  checkTerm(outcome, await recordsOf(first!, 'term'), 200)
})

two('the per-minute token budget holds across both processes: no overspend, the rest 429', async () => {
  const outcome = await burst(clients('sk-minute'), 200)
  await new Promise((r) => setTimeout(r, 300))
  checkMinute(outcome, await recordsOf(first!, 'minute'), 200)
})

two.run()
