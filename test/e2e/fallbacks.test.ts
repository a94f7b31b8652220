/**
 * Fallback models end to end, with the openai SDK over real sockets: a model whose only server
 * is down (a closed loopback port) is answered by its fallback, whole and streamed, with
 * `x-gateway-fallback` naming it and a record naming both; a 5xx or 429 of the simulator
 * (`x-return-error`, forwarded only to the first model's backend) and a replica that stays
 * silent past the backend's `timeout_ms` fall back too; a 400 does not, and neither does a
 * stream cut after its first bytes (the spare's server is never asked); a fallback the key's
 * group may not use is skipped; the fallback gets its own served name and its own reasoning
 * fields; and the budget is charged at the prices of the model that answered.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import net from 'node:net'
import type http from 'node:http'
import type OpenAI from 'openai'
import { toFile } from 'openai'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { keysFile, modelsWith } from '../support/deployment-files.js'
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream.js'
import { until } from '../support/stuck.js'
import type { UsageRecord } from '../../kernel/contract/records.js'
import budget from '../../plugins/budget/index.js'
import { termPeriod } from '../../plugins/budget/terms.js'
import { valueOf } from '../../kernel/contract/index.js'
import { defaultConfigDir } from '../../kernel/contract/paths.js'
import { zeroAudioTimings } from './audio-gateway.js'
import { toneWav } from '../support/audio.js'
import fs from 'node:fs'
import path from 'node:path'

const test = suite('e2e fallbacks')
let gw: TestGateway
let capture: FakeUpstream
const ADMIN = 'sk-admin-fallbacks'
const LIMITED = 'sk-fallbacks-limited'
const PAYER = 'sk-fallbacks-payer'
// What the simulator calls the spare and the other fallback: the reply's `model` says who answered.
const SPARE_SERVED = 'sim-text-3b-plain'
const SECRET_SERVED = 'sim-draft-1b'
const SPARE_PRICES = { prompt: 3_000_000, completion: 5_000_000 }
const DOWN_PRICES = { prompt: 1_000_000, completion: 1_000_000 }

/** A loopback port nothing listens on: a server is opened on it and closed again. */
async function closedPort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as net.AddressInfo).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

const chat = (id: string, extra: object) => ({
  id,
  model_type: 'chat',
  context_window: 8192,
  reported_name: `${id}-reported`,
  ...extra,
})

test.before(async () => {
  capture = await startFakeUpstream()
  capture.handle((_req: http.IncomingMessage, _body: string, res: http.ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'chatcmpl-capture',
        object: 'chat.completion',
        created: 1,
        model: 'qwen-served',
        choices: [{ index: 0, message: { role: 'assistant', content: 'captured' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 },
      }),
    )
  })
  const down = `http://127.0.0.1:${await closedPort()}`
  const models = modelsWith({
    backends: {
      down: { url: down },
      'sim-quiet': { url: 'embedded' },
      'sim-loud': { url: 'embedded', forward_headers: ['x-return-error', 'x-sim-cut-after'] },
      'sim-slow': { url: 'embedded', forward_headers: ['x-sim-stall-ms'], timeout_ms: 300 },
      capture: { url: capture.url },
    },
    models: [
      chat('fb-spare', { backend: 'sim-quiet', served_name: SPARE_SERVED, prices: SPARE_PRICES }),
      chat('fb-secret', { backend: 'sim-quiet', served_name: SECRET_SERVED }),
      chat('fb-down', { backend: 'down', served_name: 'sim-large-70b', prices: DOWN_PRICES, fallbacks: ['fb-spare'] }),
      chat('fb-guarded', { backend: 'down', served_name: 'sim-large-70b', fallbacks: ['fb-secret', 'fb-spare'] }),
      chat('fb-loud', { backend: 'sim-loud', served_name: 'sim-large-70b', fallbacks: ['fb-spare'] }),
      chat('fb-slow', { backend: 'sim-slow', served_name: 'sim-instruct-8b', fallbacks: ['fb-spare'] }),
      chat('fb-think', {
        backend: 'down',
        served_name: 'sim-thinker-8b',
        reasoning: {
          mode: 'mapped',
          default_level: 'low',
          levels: { low: { reasoning_effort: 'low' }, high: { reasoning_effort: 'high' } },
        },
        fallbacks: ['fb-qwen'],
      }),
      chat('fb-complete-down', {
        backend: 'down',
        served_name: 'sim-instruct-8b',
        supports_completions: true,
        // fb-spare serves no completions: skipped for /v1/completions.
        fallbacks: ['fb-spare', 'sim-chat-instruct'],
      }),
      {
        id: 'fb-embed-down',
        model_type: 'embedding',
        backend: 'down',
        served_name: 'sim-embed-384',
        reported_name: 'fb-embed-down-r',
        dimensions: 384,
        supports_dimensions: true,
        fallbacks: ['sim-embed'],
      },
      {
        // Spoken to in TEI's API; its fallback speaks Cohere's.
        id: 'fb-rerank-down',
        model_type: 'rerank',
        backend: 'down',
        served_name: 'sim-rerank',
        reported_name: 'fb-rerank-down-r',
        rerank_api: 'tei',
        fallbacks: ['sim-rerank'],
      },
      {
        // Its voices are Orpheus's; its fallback has its own (alloy → vivian).
        id: 'fb-speech-down',
        model_type: 'audio_speech',
        backend: 'down',
        served_name: 'sim-orpheus',
        reported_name: 'fb-speech-down-r',
        audio: { streaming: true, voices: ['tara'], voice_map: { alloy: 'tara' }, native_formats: ['pcm', 'wav'] },
        fallbacks: ['sim-qwen3-tts'],
      },
      {
        id: 'fb-whisper-down',
        model_type: 'audio_transcription',
        backend: 'down',
        served_name: 'sim-whisper',
        reported_name: 'fb-whisper-down-r',
        audio: { translation: true, formats: ['json', 'text', 'verbose_json'] },
        fallbacks: ['sim-parakeet'],
      },
      chat('fb-qwen', {
        backend: 'capture',
        served_name: 'qwen-served',
        reasoning: {
          mode: 'mapped',
          default_level: 'none',
          levels: {
            none: { chat_template_kwargs: { enable_thinking: false } },
            high: { chat_template_kwargs: { enable_thinking: true }, thinking_token_budget: 256 },
          },
        },
      }),
    ],
  })
  const keys = keysFile({ limited: { models: ['fb-guarded', 'fb-spare'] } }, [
    { id: 'limited', group: 'limited', secret: LIMITED },
    { id: 'payer', group: 'demo', secret: PAYER, budget: { amount: 1_000_000_000, term: 'day' } },
  ])
  gw = await startTestGateway({
    files: {
      'config/models.yaml': models,
      'config/keys.yaml': keys,
      'config/simulator.yaml': zeroAudioTimings(fs.readFileSync(path.join(defaultConfigDir, 'simulator.yaml'), 'utf8')),
    },
    env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN },
  })
})

test.after(async () => {
  await gw?.close()
  await capture?.close()
})

/** Chat requests the simulator received for one of its models. */
const simRequests = async (served: string): Promise<number> =>
  (await gw.simulator!.stats()).models[served]?.requests ?? 0

async function recordOf(requestId: string): Promise<UsageRecord> {
  let found: UsageRecord | undefined
  await until(`the record of ${requestId}`, async () => {
    await gw.generation().records.flush()
    const all = await gw.generation().records.list({ from: 0, to: Date.now() + 1 }, 1000)
    found = all.find((r) => r.requestId === requestId)
    return found !== undefined
  })
  return found!
}

const ask = (model: string) => ({ model, messages: [{ role: 'user' as const, content: 'hello there' }], max_tokens: 8 })

test('a model whose server is down: its fallback answers, the header and the record name both', async () => {
  const before = await simRequests(SPARE_SERVED)
  const { data, response } = await gw.openai().chat.completions.create(ask('fb-down')).withResponse()
  assert.is(data.model, SPARE_SERVED, 'the reply names the model that answered')
  assert.ok(data.choices[0]!.message.content)
  assert.is(response.headers.get('x-gateway-fallback'), 'fb-down')
  assert.is(await simRequests(SPARE_SERVED), before + 1)
  const record = await recordOf(response.headers.get('x-gateway-request-id')!)
  assert.is(record.modelRequested, 'fb-down')
  assert.is(record.model, 'fb-spare')
  assert.is(record.fallbackFrom, 'fb-down')
  assert.is(record.status, 200)
  assert.ok(record.completionTokens > 0)

  // The admin API shows the same record with fallback_from.
  const res = await fetch(`${gw.url}/admin/records?key=demo&limit=1000`, {
    headers: { authorization: `Bearer ${ADMIN}` },
  })
  assert.is(res.status, 200)
  const rows = ((await res.json()) as { data: { request_id: string; model: string; fallback_from: string | null }[] })
    .data
  const row = rows.find((r) => r.request_id === record.requestId)
  assert.equal(
    { model: row?.model, fallback_from: row?.fallback_from },
    { model: 'fb-spare', fallback_from: 'fb-down' },
  )
})

test('streamed: the fallback answers before the first byte, the header is on the stream', async () => {
  const { data, response } = await gw
    .openai()
    .chat.completions.create({ ...ask('fb-down'), stream: true, stream_options: { include_usage: true } })
    .withResponse()
  assert.is(response.headers.get('x-gateway-fallback'), 'fb-down')
  let text = ''
  let model = ''
  let usage = false
  for await (const chunk of data) {
    text += chunk.choices[0]?.delta.content ?? ''
    model = chunk.model
    if (chunk.usage) usage = true
  }
  assert.ok(text.length > 0)
  assert.is(model, SPARE_SERVED)
  assert.ok(usage)
  const record = await recordOf(response.headers.get('x-gateway-request-id')!)
  assert.is(record.model, 'fb-spare')
  assert.is(record.fallbackFrom, 'fb-down')
})

test('a 5xx and a 429 of the model server fall back; a 400 does not', async () => {
  for (const status of ['500', '503', '429']) {
    const { data, response } = await gw
      .openai()
      .chat.completions.create(ask('fb-loud'), { headers: { 'x-return-error': status } })
      .withResponse()
    assert.is(data.model, SPARE_SERVED, `after ${status}`)
    assert.is(response.headers.get('x-gateway-fallback'), 'fb-loud')
    const record = await recordOf(response.headers.get('x-gateway-request-id')!)
    assert.equal({ model: record.model, from: record.fallbackFrom }, { model: 'fb-spare', from: 'fb-loud' })
  }
  const before = await simRequests(SPARE_SERVED)
  let status = 0
  try {
    await gw.openai().chat.completions.create(ask('fb-loud'), { headers: { 'x-return-error': '400' } })
  } catch (err) {
    status = (err as InstanceType<typeof OpenAI.APIError>).status ?? -1
  }
  assert.is(status, 400, "the request's own fault is no reason to ask another model")
  assert.is(await simRequests(SPARE_SERVED), before, 'the spare was not asked')
})

test('a replica silent past timeout_ms: the fallback answers', async () => {
  const { data, response } = await gw
    .openai()
    .chat.completions.create(ask('fb-slow'), { headers: { 'x-sim-stall-ms': '60000' } })
    .withResponse()
  assert.is(data.model, SPARE_SERVED)
  assert.is(response.headers.get('x-gateway-fallback'), 'fb-slow')
})

test('a stream cut after its first bytes is not retried anywhere: the client sees the error', async () => {
  const before = await simRequests(SPARE_SERVED)
  const { data, response } = await gw
    .openai()
    .chat.completions.create(
      {
        ...ask('fb-loud'),
        max_tokens: 40,
        stream: true,
        ignore_eos: true,
      } as OpenAI.ChatCompletionCreateParamsStreaming,
      { headers: { 'x-sim-cut-after': '2' } },
    )
    .withResponse()
  assert.is(response.headers.get('x-gateway-fallback'), null)
  let chunks = 0
  let failed = false
  try {
    for await (const _ of data) chunks++
  } catch {
    failed = true
  }
  assert.ok(chunks > 0, 'bytes reached the client')
  assert.ok(failed, 'the cut stream fails as it did before fallbacks')
  assert.is(await simRequests(SPARE_SERVED), before, 'the spare was never asked')
  const record = await recordOf(response.headers.get('x-gateway-request-id')!)
  assert.is(record.model, 'fb-loud')
  assert.is(record.fallbackFrom, null)
})

test("a fallback the key's group may not use is skipped", async () => {
  const all = await gw.openai().chat.completions.create(ask('fb-guarded')).withResponse()
  assert.is(all.data.model, SECRET_SERVED, 'a group that may use both gets the first fallback')
  const limited = await gw.openai(LIMITED).chat.completions.create(ask('fb-guarded')).withResponse()
  assert.is(limited.data.model, SPARE_SERVED, 'a group that may not use fb-secret gets the next')
  assert.is(limited.response.headers.get('x-gateway-fallback'), 'fb-guarded')
  const record = await recordOf(limited.response.headers.get('x-gateway-request-id')!)
  assert.equal({ model: record.model, from: record.fallbackFrom }, { model: 'fb-spare', from: 'fb-guarded' })
})

test('the fallback is asked with its own served name and reasoning fields', async () => {
  const { data, response } = await gw
    .openai()
    .chat.completions.create({ ...ask('fb-think'), reasoning_effort: 'high' })
    .withResponse()
  assert.is(data.model, 'qwen-served')
  assert.is(response.headers.get('x-gateway-fallback'), 'fb-think')
  assert.is(response.headers.get('x-gateway-reasoning-effort'), 'high')
  const sent = capture.received.at(-1)!.body as Record<string, unknown>
  assert.is(sent.model, 'qwen-served')
  assert.equal(sent.chat_template_kwargs, { enable_thinking: true })
  assert.is(sent.thinking_token_budget, 256)
  assert.not.ok('reasoning_effort' in sent, "the first model's level field is not sent to the fallback")

  // A level the fallback lacks: the nearest it has, and the headers say so.
  const low = await gw
    .openai()
    .chat.completions.create({ ...ask('fb-think'), reasoning_effort: 'low' })
    .withResponse()
  assert.is(low.response.headers.get('x-gateway-reasoning-effort'), 'none')
  assert.is(low.response.headers.get('x-gateway-reasoning-effort-requested'), 'low')
  assert.equal((capture.received.at(-1)!.body as Record<string, unknown>).chat_template_kwargs, {
    enable_thinking: false,
  })
})

test('every route that reaches a model falls back: completions, embeddings, rerank, speech, transcription', async () => {
  const client = gw.openai()
  const fallbackOf = async (what: string, response: Response, answered: string) => {
    assert.is(response.status, 200, what)
    const requestId = response.headers.get('x-gateway-request-id')!
    const record = await recordOf(requestId)
    assert.equal(
      { header: response.headers.get('x-gateway-fallback'), model: record.model, from: record.fallbackFrom },
      { header: record.modelRequested, model: answered, from: record.modelRequested },
      what,
    )
  }
  const completion = await client.completions
    .create({ model: 'fb-complete-down', prompt: 'Once upon a time', max_tokens: 4 })
    .withResponse()
  assert.ok(completion.data.choices[0]!.text.length > 0)
  await fallbackOf('completions', completion.response, 'sim-chat-instruct')

  const embedding = await client.embeddings
    .create({ model: 'fb-embed-down', input: 'a sentence', dimensions: 64 })
    .withResponse()
  assert.is(embedding.data.data[0]!.embedding.length, 64)
  await fallbackOf('embeddings', embedding.response, 'sim-embed')

  const rerank = await fetch(`${gw.url}/v1/rerank`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fb-rerank-down', query: 'cats', documents: ['dogs bark', 'cats purr'] }),
  })
  const ranked = (await rerank.clone().json()) as { model: string; results: { index: number }[] }
  assert.is(ranked.model, 'sim-rerank', 'the reply names the model that answered')
  assert.is(ranked.results.length, 2)
  await fallbackOf('rerank', rerank, 'sim-rerank')

  const speech = await client.audio.speech
    .create({ model: 'fb-speech-down', voice: 'alloy', input: 'Hello there.', response_format: 'wav' })
    .withResponse()
  const audio = Buffer.from(await speech.data.arrayBuffer())
  assert.is(audio.subarray(0, 4).toString('latin1'), 'RIFF')
  await fallbackOf('speech', speech.response, 'sim-qwen3-tts')

  const transcript = await client.audio.transcriptions
    .create({ model: 'fb-whisper-down', file: await toFile(toneWav(1), 'tone.wav', { type: 'audio/wav' }) })
    .withResponse()
  assert.type(transcript.data.text, 'string')
  await fallbackOf('transcription', transcript.response, 'sim-parakeet')
})

test('the budget is charged at the prices of the model that answered', async () => {
  const { ledger } = await gw.plugins.get(budget)!
  const period = termPeriod('day', Date.now())
  const counter = `budget:term:key:payer:${period.id}`
  const window = {
    kind: 'term' as const,
    expiresAt: period.end,
    seed: async () => 0,
    scope: { keyId: 'payer' },
  }
  const before = await ledger.used(counter, window, Date.now())
  const { response } = await gw.openai(PAYER).chat.completions.create(ask('fb-down')).withResponse()
  assert.is(response.headers.get('x-gateway-fallback'), 'fb-down')
  const record = await recordOf(response.headers.get('x-gateway-request-id')!)
  const used = {
    inputTokens: record.promptTokens,
    outputTokens: record.completionTokens,
    cachedTokens: record.cachedTokens,
    characters: 0,
    audioSeconds: 0,
    source: 'reported' as const,
  }
  const spare = valueOf(SPARE_PRICES, used)
  const first = valueOf(DOWN_PRICES, used)
  assert.ok(spare !== first, 'the two models price this request differently')
  const after = await ledger.used(counter, window, Date.now())
  assert.ok(Math.abs(after - before - spare) < 1e-6, `charged ${after - before}, the spare's price is ${spare}`)
  assert.ok(Math.abs(record.charged - spare) < 1e-6, 'the record charged the same')
})

test.run()
