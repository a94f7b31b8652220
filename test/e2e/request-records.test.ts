/**
 * One record per client request, with the official openai SDK over real sockets, for the five
 * kinds of request answered through internal calls: a chat answered through the web_search
 * boon and through the image_generation boon (whole and streamed), a verdicts request, and a
 * speculation whose draft was accepted. For each: the client's `x-gateway-request-id` has
 * exactly one record of its own (`GET /admin/records?request_id=`) with the model and tokens
 * the client was told; every other record the request caused names it as
 * `parent_request_id`; and what the records say was charged adds up to the key's term budget
 * counter (the Redis ledger's, read directly), so nothing is charged twice or lost.
 */
import fs from 'node:fs'
import path from 'node:path'
import * as assert from 'uvu/assert'
import type OpenAI from 'openai'
import { Redis } from 'ioredis'
import { startTestGateway, type TestGateway } from '../support/gateway.js'
import { keysFile, serverWith } from '../support/deployment-files.js'
import { startFakeSearxng, type FakeSearxng } from '../support/searxng.js'
import { REDIS_URL, uniqueName } from '../support/services.js'
import { suiteNeeding } from '../support/needs-server.js'
import { termPeriod } from '../../plugins/budget/terms.js'

const test = suiteNeeding(['redis'], 'e2e: one record per client request, internal calls linked, charged once')
const ADMIN = 'sk-admin-request-records'
const prefix = `${uniqueName('sluice-e2e-records')}:`
let engine: FakeSearxng
let gw: TestGateway
let redis: Redis

// One key per kind, each with a term budget, so each budget counter holds only its kind's work.
const kinds = ['search', 'search-stream', 'image', 'image-stream', 'verdicts', 'speculation'] as const
type Kind = (typeof kinds)[number]
const keys = keysFile(
  {},
  kinds.map((k) => ({
    id: `r-${k}`,
    group: 'demo',
    secret: `sk-r-${k}`,
    budget: { amount: 1_000_000, term: 'month' },
  })),
)

test.before(async () => {
  engine = await startFakeSearxng(30_000)
  gw = await startTestGateway({
    env: { SLUICE_ADMIN_KEY: ADMIN },
    files: {
      'config/keys.yaml': keys,
      'config/server.yaml': serverWith({
        stores: { redis_url: REDIS_URL, redis_prefix: prefix },
        web_search: {
          provider: 'searxng',
          url: engine.url,
          timeout_ms: 2000,
          default_results: 5,
          max_results: 10,
          local: { project: 'demo', collection: 'sample' },
        },
      }),
    },
  })
  redis = new Redis(REDIS_URL)
})
test.after(async () => {
  await gw?.close()
  await engine?.close()
  if (!redis) return
  const stale = await redis.keys(`${prefix}*`)
  if (stale.length > 0) await redis.del(...stale)
  await redis.quit()
})

interface RecordView {
  request_id: string
  parent_request_id: string | null
  route: string
  model: string
  prompt_tokens: number
  completion_tokens: number
  value: number
  charged: number
  status: number
}

async function recordsOf(requestId: string): Promise<RecordView[]> {
  const res = await fetch(`${gw.url}/admin/records?request_id=${encodeURIComponent(requestId)}`, {
    headers: { authorization: `Bearer ${ADMIN}` },
  })
  assert.is(res.status, 200, await res.clone().text())
  return ((await res.json()) as { data: RecordView[] }).data
}

/** The key's term counter as the ledger settled it (the budget plugin's counter name, under the deployment's Redis prefix). */
async function counter(kind: Kind): Promise<number> {
  // Settlements run as each request finishes: wait until the ledger holds no open reservation.
  const name = `${prefix}budget:term:key:r-${kind}:${termPeriod('month', Date.now()).id}`
  return Number((await redis.get(name)) ?? 0)
}

const chatTools = (content: string) => ({
  model: 'sim-chat-tools',
  messages: [{ role: 'user' as const, content }],
})

/** What each kind asks, made with the kind's key; resolves to the request id and the usage and model the client was told. */
const requests: Record<Kind, (c: OpenAI) => Promise<{ id: string; model: string; usage: OpenAI.CompletionUsage }>> = {
  search: async (c) => whole(c, chatTools('Please search for the zebracorn lighthouse')),
  'search-stream': async (c) => streamed(c, chatTools('search the web for tide tables')),
  image: async (c) => whole(c, chatTools('draw a quokka on a bicycle')),
  'image-stream': async (c) => streamed(c, chatTools('draw a red kite over hills')),
  verdicts: async (c) => {
    const { data, response } = await c
      .post<{ model: string; usage: OpenAI.CompletionUsage }>('/verdicts', {
        body: {
          model: 'sim-chat-instruct',
          state: 'The sky is blue.',
          questions: {
            blue: { type: 'boolean', instructions: 'Is the sky blue?' },
            green: { type: 'boolean', instructions: 'Is the sky green?' },
          },
        },
      })
      .withResponse()
    return { id: response.headers.get('x-gateway-request-id')!, model: data.model, usage: data.usage }
  },
  speculation: async (c) =>
    whole(c, {
      model: 'sim-large',
      messages: [{ role: 'user', content: 'Name a colour. [sim-verdict: prefer=yes]' }],
    }),
}

async function whole(c: OpenAI, body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming) {
  const { data, response } = await c.chat.completions.create(body).withResponse()
  return { id: response.headers.get('x-gateway-request-id')!, model: data.model, usage: data.usage! }
}

async function streamed(c: OpenAI, body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming) {
  const { data: stream, response } = await c.chat.completions
    .create({ ...body, stream: true, stream_options: { include_usage: true } })
    .withResponse()
  let usage: OpenAI.CompletionUsage | undefined
  let model = ''
  for await (const chunk of stream) {
    model = chunk.model
    if (chunk.usage) usage = chunk.usage
  }
  return { id: response.headers.get('x-gateway-request-id')!, model, usage: usage! }
}

const settled = async (kind: Kind, expected: number): Promise<number> => {
  // The last internal call settles as it finishes, after the client got its reply: poll briefly.
  for (let i = 0; i < 50; i++) {
    const now = await counter(kind)
    if (Math.abs(now - expected) < 1e-9) return now
    await new Promise((r) => setTimeout(r, 20))
  }
  return counter(kind)
}

for (const kind of kinds) {
  test(`${kind}: one record of the client request with what it was told; internal calls linked; charged once`, async () => {
    const told = await requests[kind](gw.openai(`sk-r-${kind}`))
    assert.ok(told.id, 'the response carries its request id')
    // A stream is recorded when it has ended, just after its last byte: wait for the record.
    let records = await recordsOf(told.id)
    for (let i = 0; i < 50 && !records.some((x) => x.request_id === told.id); i++) {
      await new Promise((r) => setTimeout(r, 20))
      records = await recordsOf(told.id)
    }
    const own = records.filter((r) => r.request_id === told.id)
    assert.is(own.length, 1, `one record of the client request (${JSON.stringify(records.map((r) => r.route))})`)
    const r = own[0]!
    assert.is(r.parent_request_id, null)
    assert.is(r.status, 200)
    assert.equal([r.prompt_tokens, r.completion_tokens], [told.usage.prompt_tokens, told.usage.completion_tokens])
    assert.ok(r.prompt_tokens > 0 && r.completion_tokens > 0, 'tokens were told')
    assert.is(r.charged, 0, 'the client request itself ran no model: its internal calls are charged')
    const internal = records.filter((x) => x.request_id !== told.id)
    assert.ok(internal.length >= 2, `internal calls are recorded: ${internal.length}`)
    assert.ok(
      internal.every((x) => x.parent_request_id === told.id),
      'every internal call names its client request',
    )
    const charged = records.reduce((n, x) => n + x.charged, 0)
    assert.ok(charged > 0, 'work was charged')
    const ledger = await settled(kind, charged)
    assert.ok(
      Math.abs(ledger - charged) < 1e-9,
      `the budget counter (${ledger}) is what the records charged (${charged})`,
    )
  })
}

test('usage per key counts the client request once, its internal calls apart', async () => {
  const res = await fetch(`${gw.url}/admin/usage?by=key&key=r-verdicts`, {
    headers: { authorization: `Bearer ${ADMIN}` },
  })
  const row = ((await res.json()) as { data: { requests: number; internal: { requests: number } }[] }).data[0]!
  assert.is(row.requests, 1)
  assert.is(row.internal.requests, 2, 'the two questions')
})

test('the access log line of a boon chat shows the model and tokens the client was told', async () => {
  const told = await whole(gw.openai('sk-r-search'), chatTools('Please search for the zebracorn lighthouse'))
  let line: Record<string, unknown> | undefined
  const file = path.join(gw.dataDir, 'access.log')
  // The access log is written in batches: wait for the batch that holds the line.
  for (let i = 0; i < 100 && !line; i++) {
    const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []
    line = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.request_id === told.id)
    if (!line) await new Promise((r) => setTimeout(r, 20))
  }
  assert.ok(line, 'an access line for the request')
  assert.equal(
    [line!.model, line!.tokens_in, line!.tokens_out],
    ['sim-chat-tools', told.usage.prompt_tokens, told.usage.completion_tokens],
  )
})

test.run()
