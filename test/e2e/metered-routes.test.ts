/**
 * Every route of the shipped pipelines that reaches a model is budgeted, queued and recorded:
 * chat, responses, completions, messages, embeddings, rerank, verdicts, speech, transcription, translation and images. For each, with real
 * clients over real sockets: a key whose term budget is exhausted gets 403, a key over its
 * per-minute tokens gets 429, a served request leaves exactly one record with its tokens or
 * seconds and an indicative value, and the admin API's usage per key and per model shows it.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import OpenAI, { toFile } from 'openai'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { keysFile } from '../support/deployment-files.js'
import { toneWav } from '../support/audio.js'
import type { UsageRecord } from '../../kernel/contract/records.js'

const test = suite('e2e metering on every model-reaching route')
const ADMIN = 'sk-admin-metered'
let gw: TestGateway

const keys = keysFile({}, [
  // A term budget already spent: 0 of anything is left.
  { id: 'broke', group: 'demo', secret: 'sk-broke', budget: { amount: 0, term: 'month' } },
  // One token a minute: any request is over it.
  { id: 'slow', group: 'demo', secret: 'sk-slow', tokens_per_minute: 1 },
  // A key per route, so that its records and usage rows are only that route's.
  ...[
    'chat',
    'responses',
    'completions',
    'messages',
    'embeddings',
    'rerank',
    'verdicts',
    'speech',
    'transcription',
    'translation',
    'images',
  ].map((r) => ({ id: `m-${r}`, group: 'demo', secret: `sk-m-${r}` })),
])

test.before(async () => {
  gw = await startTestGateway({
    files: { 'config/keys.yaml': keys },
    env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN },
  })
})
test.after(() => gw.close())

const wav = () => toFile(toneWav(2), 'tone.wav', { type: 'audio/wav' })

/** One request of each model-reaching route, made with `client`; resolves to what it returned. */
const calls: Record<string, (client: OpenAI) => Promise<unknown>> = {
  chat: (c) =>
    c.chat.completions.create({
      model: 'sim-chat-instruct',
      messages: [{ role: 'user', content: 'hello' }],
      max_tokens: 8,
    }),
  responses: (c) => c.responses.create({ model: 'sim-chat-instruct', input: 'hello', max_output_tokens: 8 }),
  completions: (c) => c.completions.create({ model: 'sim-chat-instruct', prompt: 'Once upon', max_tokens: 8 }),
  // The Messages API (Anthropic's errors carry the message at error.message too).
  messages: (c) =>
    c.post('/messages', {
      body: { model: 'sim-chat-instruct', max_tokens: 8, messages: [{ role: 'user', content: 'hello' }] },
    }),
  embeddings: (c) => c.embeddings.create({ model: 'sim-embed', input: ['Once upon', 'a time'] }),
  // The Cohere/Jina rerank body (the openai SDK's generic post, for its errors).
  rerank: (c) =>
    c.post('/rerank', { body: { model: 'sim-rerank', query: 'cats', documents: ['cats sleep', 'dogs bark'] } }),
  verdicts: (c) =>
    c.post('/verdicts', {
      body: {
        model: 'sim-chat-instruct',
        state: 'The sky is blue.',
        questions: { q: { type: 'boolean', instructions: 'Is the sky blue?' } },
      },
    }),
  speech: async (c) =>
    Buffer.from(
      await (
        await c.audio.speech.create({
          model: 'sim-orpheus',
          voice: 'tara',
          input: 'Hello there.',
          response_format: 'wav',
        })
      ).arrayBuffer(),
    ),
  transcription: async (c) => c.audio.transcriptions.create({ model: 'sim-whisper', file: await wav() }),
  translation: async (c) => c.audio.translations.create({ model: 'sim-whisper', file: await wav() }),
  images: (c) =>
    c.images.generate({ model: 'sim-image', prompt: 'a small boat', size: '256x256', response_format: 'b64_json' }),
}

/** The route id each client request's record carries. */
const recordedRoute: Record<string, string> = {
  chat: 'chat',
  responses: 'responses',
  completions: 'completions',
  messages: 'messages',
  embeddings: 'embeddings',
  rerank: 'rerank',
  verdicts: 'verdicts',
  speech: 'audio-speech',
  transcription: 'audio-transcriptions',
  translation: 'audio-translations',
  images: 'images-generations',
}

const client = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 })

async function refusal(call: () => Promise<unknown>): Promise<[number | undefined, string]> {
  try {
    await call()
  } catch (err) {
    const e = err as InstanceType<typeof OpenAI.APIError>
    return [e.status, (e.error as { message?: string } | undefined)?.message ?? e.message]
  }
  return [200, 'served']
}

async function admin(path: string): Promise<{ data: Record<string, unknown>[] }> {
  const res = await fetch(`${gw.url}/admin${path}`, { headers: { authorization: `Bearer ${ADMIN}` } })
  assert.is(res.status, 200)
  return (await res.json()) as { data: Record<string, unknown>[] }
}

for (const [route, call] of Object.entries(calls)) {
  test(`${route}: an exhausted term budget gets 403, a key over its per-minute tokens 429`, async () => {
    assert.equal(await refusal(() => call(client('sk-broke'))), [403, 'api key term budget exhausted'])
    assert.equal(await refusal(() => call(client('sk-slow'))), [429, 'token budget exceeded'])
  })

  test(`${route}: a served request leaves one record with its figures and value, in usage per key and per model`, async () => {
    await call(client(`sk-m-${route}`))
    await gw.generation().records.flush()
    const records = (await gw
      .generation()
      .records.list({ from: 0, to: Date.now() + 1, keyId: `m-${route}` }, 100)) as UsageRecord[]
    const own = records.filter((r) => r.parentRequestId === null)
    assert.is(own.length, 1, 'exactly one record of the client request')
    const r = own[0]!
    // A one-question verdict is one chat-internal call, recorded apart and linked to its request.
    const internal = records.filter((c) => c.parentRequestId !== null)
    assert.equal(
      internal.map((c) => [c.route, c.parentRequestId]),
      route === 'verdicts' ? [['chat-internal', r.requestId]] : [],
    )
    assert.is(r.route, recordedRoute[route])
    assert.is(r.status, 200)
    assert.is(r.usageSource, 'reported')
    if (route === 'transcription' || route === 'translation') {
      assert.ok(Math.abs(r.audioSeconds - 2) < 0.01, `seconds of audio: ${r.audioSeconds}`)
    } else if (route === 'speech') {
      assert.is(r.characters, 'Hello there.'.length)
      assert.ok(r.completionTokens > 0, 'audio tokens')
    } else if (route === 'embeddings') {
      // The simulator's count: a start token and a token per four bytes, for each input.
      assert.equal([r.promptTokens, r.completionTokens], [1 + 3 + (1 + 2), 0])
    } else if (route === 'rerank') {
      // The simulator's count, per pair: the query's start token and tokens, then the document's.
      assert.equal([r.promptTokens, r.completionTokens], [1 + 1 + 1 + 3 + (1 + 1 + 1 + 3), 0])
    } else {
      assert.ok(r.promptTokens > 0 && r.completionTokens > 0, 'tokens')
    }
    assert.ok(r.value > 0, `an indicative value: ${r.value}`)
    const byKey = (await admin(`/usage?by=key&key=m-${route}`)).data
    assert.equal(
      byKey.map((row) => [row.key, row.requests]),
      [[`m-${route}`, 1]],
    )
    assert.ok(Math.abs((byKey[0]!.value as number) - r.value) < 1e-12, 'usage per key carries the value')
    const byModel = (await admin(`/usage?by=model&key=m-${route}`)).data
    assert.equal(
      byModel.map((row) => [row.model, row.requests]),
      [[r.model, 1]],
    )
    if (route === 'transcription' || route === 'translation') assert.ok((byModel[0]!.audio_seconds as number) > 1.99)
    if (route === 'speech') assert.is(byModel[0]!.characters, 'Hello there.'.length)
  })
}

test.run()
