/**
 * The speculation boon end to end with the official openai SDK: sim-large opted in with
 * sim-draft as its draft model (config/models.yaml). The simulator's verdict markers
 * (`[sim-verdict: prefer=yes|no]`, docs/simulator.md) make the large model's check accept or
 * reject. An accepted reply is the draft's text under the large model's name; a rejected one is
 * the large model's own answer, word for word; both streamed too. The draft and the check are
 * in the usage records under the caller's key; `x-gateway-boons: off`, a request speculation
 * cannot serve and a model that did not opt in make no draft at all.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'

const test = suite('e2e speculation boon')
const ADMIN = 'sk-admin-speculation'
let gw: TestGateway
let client: OpenAI

test.before(async () => {
  gw = await startTestGateway({ env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN } })
  client = gw.openai()
})
test.after(() => gw.close())

const ACCEPT = 'Name three colours of the rainbow. [sim-verdict: prefer=yes]'
const REJECT = 'Name three rivers of Europe. [sim-verdict: prefer=no]'
const ask = (content: string) => [{ role: 'user' as const, content }]

interface RecordRow {
  request_id: string
  route: string
  model: string
  key_id?: string
  prompt_tokens: number
  completion_tokens: number
}

/** The demo key's records of requests that started at `since` or later (the admin API). */
async function recordsSince(since: number): Promise<RecordRow[]> {
  await gw.generation().records.flush()
  const res = await fetch(`${gw.url}/admin/records?key=demo&from=${since}&limit=1000`, {
    headers: { authorization: `Bearer ${ADMIN}` },
  })
  assert.is(res.status, 200)
  return ((await res.json()) as { data: RecordRow[] }).data
}

/**
 * The records a block of traffic added, as `route model` (with the completion tokens of the
 * large model's internal calls: 1 for a check). Selected by start time, so a stream of an
 * earlier test that is recorded late cannot count here.
 */
async function recordsOf(run: () => Promise<void>): Promise<string[]> {
  const since = Date.now()
  await run()
  return (await recordsSince(since))
    .map(
      (r) =>
        `${r.route} ${r.model}${r.route === 'chat-internal' && r.model === 'sim-large' ? ` ${r.completion_tokens}` : ''}`,
    )
    .sort()
}

/** What the draft model says to the same messages (the simulator answers a prompt the same way every time). */
async function draftOf(content: string): Promise<string> {
  const r = await client.chat.completions.create({ model: 'sim-draft', messages: ask(content), max_tokens: 512 })
  return r.choices[0]!.message.content!
}

/** The large model's own answer, with every boon off. */
async function largeOwn(
  content: string,
  extra: Partial<OpenAI.Chat.ChatCompletionCreateParamsNonStreaming> = {},
): Promise<OpenAI.Chat.ChatCompletion> {
  const { data, response } = await client.chat.completions
    .create({ model: 'sim-large', messages: ask(content), ...extra }, { headers: { 'x-gateway-boons': 'off' } })
    .withResponse()
  assert.is(response.headers.get('x-gateway-boons'), null, 'off: no boon acted')
  return data
}

async function streamed(content: string, headers: Record<string, string> = {}) {
  const { data: stream, response } = await client.chat.completions
    .create(
      { model: 'sim-large', messages: ask(content), stream: true, stream_options: { include_usage: true } },
      { headers },
    )
    .withResponse()
  let text = ''
  let finish: string | null = null
  let usage: OpenAI.CompletionUsage | null | undefined
  const models = new Set<string>()
  for await (const chunk of stream) {
    models.add(chunk.model)
    text += chunk.choices[0]?.delta.content ?? ''
    finish = chunk.choices[0]?.finish_reason ?? finish
    if (chunk.usage) usage = chunk.usage
  }
  return { text, finish, usage, models: [...models], boons: response.headers.get('x-gateway-boons') }
}

test('the catalog shows speculation active on sim-large, with its draft model', async () => {
  const entry = (await client.models.retrieve('sim-large')) as unknown as { boons: string[]; boon_details: unknown[] }
  assert.equal(entry.boons, ['speculation'])
  assert.equal(entry.boon_details, [{ name: 'speculation', active: true, helper_model: 'sim-draft' }])
})

test('accepted: the reply is the draft, under the large model’s name; x-gateway-boons says speculation', async () => {
  const draft = await draftOf(ACCEPT)
  const own = await largeOwn(ACCEPT)
  assert.is.not(
    own.choices[0]!.message.content,
    draft,
    'the two models answer differently, so the test can tell them apart',
  )
  let reply: OpenAI.Chat.ChatCompletion | undefined
  let boons: string | null = null
  const added = await recordsOf(async () => {
    const r = await client.chat.completions.create({ model: 'sim-large', messages: ask(ACCEPT) }).withResponse()
    reply = r.data
    boons = r.response.headers.get('x-gateway-boons')
  })
  assert.is(boons, 'speculation')
  assert.is(reply!.choices[0]!.message.content, draft)
  assert.is(reply!.choices[0]!.finish_reason, 'stop')
  assert.is(reply!.model, 'sim-large-70b', "the large model's server name, which maps back to sim-large")
  assert.is((await client.models.retrieve(reply!.model)).id, 'sim-large')
  assert.ok(reply!.usage!.completion_tokens > 1, "usage is the draft's: the tokens of the text the client got")
  // The client request's own record (the draft's usage, under the model asked for), the draft
  // and a one-token check, all under the caller's key; the large model wrote nothing else.
  assert.equal(added, ['chat sim-large', 'chat-internal sim-draft', 'chat-internal sim-large 1'])
})

test("rejected: the reply is the large model's own answer; the draft and the check are still recorded", async () => {
  const own = await largeOwn(REJECT)
  let reply: OpenAI.Chat.ChatCompletion | undefined
  let boons: string | null = null
  const added = await recordsOf(async () => {
    const r = await client.chat.completions.create({ model: 'sim-large', messages: ask(REJECT) }).withResponse()
    reply = r.data
    boons = r.response.headers.get('x-gateway-boons')
  })
  assert.is(boons, 'speculation', 'it acted: a draft was made and checked')
  assert.is(reply!.choices[0]!.message.content, own.choices[0]!.message.content)
  assert.is.not(reply!.choices[0]!.message.content, await draftOf(REJECT))
  // The large model's own usage (its prefix cache may now hold the conversation: the check read it).
  assert.equal(
    [reply!.usage!.prompt_tokens, reply!.usage!.completion_tokens],
    [own.usage!.prompt_tokens, own.usage!.completion_tokens],
  )
  assert.equal(added, ['chat sim-large', 'chat-internal sim-draft', 'chat-internal sim-large 1'])
})

test('streamed, accepted: the draft as a stream, finish and usage; streamed, rejected: the large model’s own stream', async () => {
  const accepted = await streamed(ACCEPT)
  assert.is(accepted.boons, 'speculation')
  assert.is(accepted.text, await draftOf(ACCEPT))
  assert.is(accepted.finish, 'stop')
  assert.equal(accepted.models, ['sim-large-70b'])
  assert.ok(accepted.usage && accepted.usage.completion_tokens > 1, 'the usage chunk the client asked for')

  const rejected = await streamed(REJECT)
  assert.is(rejected.boons, 'speculation')
  const own = await streamed(REJECT, { 'x-gateway-boons': 'off' })
  assert.is(own.boons, null)
  assert.is(rejected.text, own.text)
  assert.is(rejected.text, (await largeOwn(REJECT)).choices[0]!.message.content)
  assert.equal(
    [rejected.usage?.prompt_tokens, rejected.usage?.completion_tokens],
    [own.usage?.prompt_tokens, own.usage?.completion_tokens],
  )
})

test('the Responses API and the Messages API speculate too: their replies carry the accepted draft, streamed or not', async () => {
  const draft = await draftOf(ACCEPT)
  const response = await client.responses.create({ model: 'sim-large', input: ACCEPT }).withResponse()
  assert.is(response.response.headers.get('x-gateway-boons'), 'speculation')
  assert.is(response.data.output_text, draft)
  let text = ''
  for await (const event of await client.responses.create({ model: 'sim-large', input: ACCEPT, stream: true }))
    if (event.type === 'response.output_text.delta') text += event.delta
  assert.is(text, draft)
  const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0, timeout: 30_000 })
  const message = await anthropic.messages.create({ model: 'sim-large', max_tokens: 512, messages: ask(ACCEPT) })
  assert.equal(message.content, [{ type: 'text', text: draft }])
  const streamedMessage = await anthropic.messages
    .stream({ model: 'sim-large', max_tokens: 512, messages: ask(ACCEPT) })
    .finalMessage()
  assert.equal(
    streamedMessage.content.map((b) => (b.type === 'text' ? b.text : b.type)),
    [draft],
  )
})

test('x-gateway-boons: off makes no draft: only the large model is called', async () => {
  const added = await recordsOf(async () => {
    await largeOwn(ACCEPT)
  })
  assert.equal(added, ['chat sim-large'])
})

test('a draft cut at its length limit is rejected without a check', async () => {
  // max_tokens 1: the one-token draft is cut (finish_reason length), so only the large model answers.
  let boons: string | null = null
  let reply: OpenAI.Chat.ChatCompletion | undefined
  const added = await recordsOf(async () => {
    const r = await client.chat.completions
      .create({ model: 'sim-large', messages: ask(ACCEPT), max_tokens: 1 })
      .withResponse()
    boons = r.response.headers.get('x-gateway-boons')
    reply = r.data
  })
  assert.is(boons, 'speculation')
  assert.is(reply!.model, 'sim-large-70b')
  assert.equal(added, ['chat sim-large', 'chat-internal sim-draft'])
})

test('requests speculation cannot serve, and models that did not opt in, never speculate', async () => {
  const added = await recordsOf(async () => {
    // logprobs would be the draft's, n > 1 would need several drafts: the large model answers.
    for (const extra of [{ logprobs: true }, { n: 2 }, { response_format: { type: 'json_object' as const } }]) {
      const r = await client.chat.completions
        .create({ model: 'sim-large', messages: ask(ACCEPT), max_tokens: 8, ...extra })
        .withResponse()
      assert.is(r.response.headers.get('x-gateway-boons'), null, JSON.stringify(extra))
    }
    for (const model of ['sim-chat-instruct', 'sim-text-plain']) {
      const r = await client.chat.completions.create({ model, messages: ask(ACCEPT), max_tokens: 8 }).withResponse()
      assert.is(r.response.headers.get('x-gateway-boons'), null, model)
    }
  })
  assert.equal(added, [
    'chat sim-chat-instruct',
    'chat sim-large',
    'chat sim-large',
    'chat sim-large',
    'chat sim-text-plain',
  ])
})

test.run()
