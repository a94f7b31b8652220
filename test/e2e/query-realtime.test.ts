/**
 * The realtime route and the body types over the Query service's WebSocket, end to end with the
 * real `ws` client: a WAV of known speech in, its transcript, the answer's text deltas and the
 * spoken answer's audio deltas (pcm16, wav, mp3), the usage by part against the usage records
 * of key `demo`; the semantic cache; vision, audio, speech and rerank answered as over REST;
 * bad realtime messages answered with error messages while the socket stays open.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import WebSocket from 'ws'
import { startTestGateway, TEST_DEV_TOKEN, TEST_KEY, TEST_SERVICE_TOKEN, type TestGateway } from '../support/gateway.js'
import { QueryWsClient, type Json } from '../support/query-ws-client.js'
import { parseWav, mp3Header } from '../support/audio.js'
import type { UsageRecord } from '../../kernel/contract/records.js'

const test = suite('e2e query service: realtime and body types over WebSocket')
const ADMIN = 'sk-admin-query-realtime-e2e'
let gw: TestGateway
/** Known speech: the speech route's own WAV of a sentence, 24 kHz mono. */
let speechWav: Buffer

const realtime = (id: string, extra: Json = {}) => ({
  id,
  endpoint: 'realtime',
  query: 'Answer the question in the recording.',
  audio_file: speechWav.toString('base64'),
  model_provider: 'gateway',
  model_name: 'sim-chat-instruct',
  request_source: 'override_params',
  ...extra,
})

async function records(route: string, since = 0): Promise<UsageRecord[]> {
  await gw.generation().records.flush()
  return (
    (await gw.generation().records.list({ from: since, to: Date.now() + 1, keyId: 'demo' }, 1000)) as UsageRecord[]
  ).filter((r) => r.route === route)
}

async function rest(route: string, body: object, token = TEST_SERVICE_TOKEN): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${gw.url}/query/v1/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as Json }
}

const open = (token = TEST_SERVICE_TOKEN) => QueryWsClient.open(gw.url, token)
const audioOf = (msgs: Json[]) =>
  Buffer.concat(
    msgs.filter((m) => m.type === 'response.audio.delta').map((m) => Buffer.from(m.delta as string, 'base64')),
  )
const textOf = (msgs: Json[]) =>
  msgs
    .filter((m) => m.type === 'response.text.delta')
    .map((m) => m.delta as string)
    .join('')

test.before(async () => {
  gw = await startTestGateway({
    env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN },
    server: { stores: { records_flush_ms: 50 } as never },
  })
  const res = await fetch(`${gw.url}/v1/audio/speech`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` },
    body: JSON.stringify({
      model: 'sim-orpheus',
      voice: 'tara',
      input: 'What is the capital of France?',
      response_format: 'wav',
    }),
  })
  assert.is(res.status, 200)
  speechWav = Buffer.from(await res.arrayBuffer())
  // The streamed header says "until the end"; a file as a client would send it has its true sizes.
  speechWav.writeUInt32LE(speechWav.length - 8, 4)
  speechWav.writeUInt32LE(speechWav.length - 44, 40)
})
test.after(() => gw.close())

test('realtime round trip: transcript, text deltas that make the answer, pcm16 audio deltas of 24 kHz mono, usage by part matching the records', async () => {
  const since = Date.now()
  // What the transcription model makes of this WAV, asked over REST.
  const heard = await rest('audio', { audio_file: speechWav.toString('base64'), task: 'transcribe' })
  assert.is(heard.status, 200, JSON.stringify(heard.body))
  const client = await open()
  client.send(realtime('r1', { model_params: { voice: 'leah', modalities: ['text', 'audio'] } }))
  const msgs = await client.finished('r1', 60_000)
  const types = msgs.map((m) => m.type as string)
  const done = msgs.at(-1)!
  assert.is(done.type, 'response.done', JSON.stringify(done).slice(0, 500))
  assert.is(types[0], 'realtime.transcript')
  assert.is(msgs[0]!.transcript, heard.body.response.response)
  assert.ok(
    types.indexOf('response.audio.delta') > types.lastIndexOf('response.text.delta'),
    'the text, then the audio',
  )
  const r = done.response
  assert.is(r.transcript, heard.body.response.response)
  assert.ok(r.text.length > 0)
  assert.is(textOf(msgs), r.text)
  assert.is(r.cached, false)
  const pcm = audioOf(msgs)
  assert.ok(types.filter((t) => t === 'response.audio.delta').length >= 1)
  assert.ok(
    msgs.filter((m) => m.type === 'response.audio.delta').every((m) => Buffer.from(m.delta, 'base64').length % 2 === 0),
    'whole samples in each delta',
  )
  assert.equal(r.audio, { format: 'pcm16', sample_rate: 24000, voice: 'leah', bytes: pcm.length })
  const u = r.usage
  // pcm16: 2 bytes × 24,000 samples a second, as long as the speech route says it spoke.
  assert.ok(pcm.length > 0)
  assert.is(
    pcm.length,
    Math.round(2 * 24000 * u.speech.audio_seconds),
    `${pcm.length} bytes for ${u.speech.audio_seconds} s`,
  )
  assert.is(u.speech.characters, r.text.length)
  // Each part against the usage record of key demo its call left.
  const [transcribed] = await records('audio-transcriptions-internal', since).then((rs) =>
    rs.filter((x) => x.at >= since).slice(-1),
  )
  assert.ok(transcribed)
  assert.is(transcribed!.model, 'sim-whisper')
  assert.ok(
    Math.abs(transcribed!.value - u.transcription.cost) < 1e-12,
    `${transcribed!.value} vs ${u.transcription.cost}`,
  )
  const answered = (await records('query-chat', since)).find(
    (x) =>
      x.promptTokens === u.answer.usage_metric.input_token_count &&
      x.completionTokens === u.answer.usage_metric.output_token_count,
  )
  assert.ok(answered, 'a query-chat record of key demo with the answer usage_metric tokens')
  const spoken = (await records('audio-speech', since)).at(-1)!
  assert.is(spoken.model, 'sim-orpheus')
  assert.ok(Math.abs(spoken.value - u.speech.cost) < 1e-12, `${spoken.value} vs ${u.speech.cost}`)
  const total = u.transcription.cost + u.answer.usage_metric.total_token_cost + u.speech.cost
  assert.ok(Math.abs(u.total_cost - total) < 1e-12)
  client.close()
})

test('realtime: wav and mp3 output; modalities [text] only gives no audio deltas', async () => {
  const client = await open()
  client.send(realtime('w1', { model_params: { output_audio_format: 'wav' } }))
  client.send(realtime('m1', { model_params: { output_audio_format: 'mp3' } }))
  client.send(realtime('t1', { model_params: { modalities: ['text'] } }))
  const wavMsgs = await client.finished('w1', 60_000)
  const wav = parseWav(audioOf(wavMsgs))
  assert.equal([wav.sampleRate, wav.channels, wav.bitsPerSample], [24000, 1, 16])
  const wavDone = wavMsgs.at(-1)!.response
  assert.is(wav.pcm.length, Math.round(2 * 24000 * wavDone.usage.speech.audio_seconds))
  const mp3 = audioOf(await client.finished('m1', 60_000))
  assert.is(mp3Header(mp3).sampleRate, 24000)
  const textOnly = await client.finished('t1', 60_000)
  assert.is(textOnly.at(-1)!.type, 'response.done')
  assert.is(textOnly.filter((m) => m.type === 'response.audio.delta').length, 0)
  assert.is(textOnly.at(-1)!.response.usage.speech, undefined)
  assert.is(textOf(textOnly), textOnly.at(-1)!.response.text)
  client.close()
})

test('realtime: raw pcm16 input (24 kHz mono, no header) is heard as the same recording; an odd byte count is 400', async () => {
  const pcm = speechWav.subarray(44)
  const client = await open()
  client.send(
    realtime('p1', {
      audio_file: pcm.toString('base64'),
      model_params: { input_audio_format: 'pcm16', modalities: ['text'] },
    }),
  )
  const msgs = await client.finished('p1', 60_000)
  assert.is(msgs.at(-1)!.type, 'response.done', JSON.stringify(msgs.at(-1)))
  const heard = msgs[0]!
  assert.is(heard.type, 'realtime.transcript')
  assert.ok(Math.abs(heard.audio_seconds - pcm.length / 2 / 24000) < 0.05, `${heard.audio_seconds} s`)
  assert.is(msgs.at(-1)!.response.usage.transcription.audio_seconds, heard.audio_seconds)
  client.send(
    realtime('p2', {
      audio_file: pcm.subarray(0, 3).toString('base64'),
      model_params: { input_audio_format: 'pcm16' },
    }),
  )
  const [odd] = await client.finished('p2')
  assert.is(odd!.error.status, 400)
  assert.match(odd!.error.message, /whole 16-bit samples/)
  client.close()
})

test('realtime with search: the collection is searched as for a query, and the sources come in response.done', async () => {
  const res = await fetch(`${gw.url}/knowledge/v1/projects/demo/collections`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'pets' }),
  })
  assert.is(res.status, 201, await res.text())
  const put = await fetch(`${gw.url}/knowledge/v1/projects/demo/collections/pets/documents/cats.md`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: '# Cats\n\nCats sleep between twelve and sixteen hours each day.' }),
  })
  assert.is(put.status, 200, await put.text())
  const client = await open()
  client.send(
    realtime('s1', {
      query: 'How long do cats sleep?',
      enable_search: true,
      search_params: { collection: 'pets', top_k: 1 },
      model_params: { modalities: ['text'] },
    }),
  )
  const done = (await client.finished('s1', 60_000)).at(-1)!
  assert.is(done.type, 'response.done', JSON.stringify(done))
  assert.equal(Object.keys(done.response.sources), ['cats.md'])
  assert.ok(
    done.response.usage.answer.usage_metric.input_token_details.knowledge_base > 0,
    'the passage is in the prompt',
  )
  client.close()
})

test('semantic caching: the same question twice is answered from the cache without a model call; another is not', async () => {
  const client = await open()
  const asked = {
    semantic_caching: true,
    model_params: { modalities: ['text'] },
    query: 'Cache test: answer the question in the recording.',
  }
  client.send(realtime('c1', asked))
  const first = (await client.finished('c1', 60_000)).at(-1)!
  assert.is(first.type, 'response.done', JSON.stringify(first))
  assert.is(first.response.cached, false)
  const before = (await records('query-chat')).length
  client.send(realtime('c2', asked))
  const second = await client.finished('c2', 60_000)
  const r = second.at(-1)!.response
  assert.is(r.cached, true)
  assert.ok(r.similarity >= 0.95, `similarity ${r.similarity}`)
  assert.is(r.text, first.response.text)
  assert.is(textOf(second), r.text)
  assert.is(r.usage.answer.usage_metric.total_token_count, 0)
  assert.is(r.usage.answer.usage_metric.total_token_cost, 0)
  assert.ok(r.usage.cache_lookup.model)
  assert.is((await records('query-chat')).length, before, 'no new query-chat record under key demo')
  // Another instruction about the same recording is another question.
  client.send(realtime('c3', { ...asked, query: 'Translate the recording into German.' }))
  const third = (await client.finished('c3', 60_000)).at(-1)!
  assert.is(third.response.cached, false)
  // The same question under other settings (another model) is not answered from the cache either.
  client.send(realtime('c4', { ...asked, model_name: 'sim-chat-thinking' }))
  assert.is((await client.finished('c4', 60_000)).at(-1)!.response.cached, false)
  client.close()
})

test('bad realtime messages get error messages naming their id; the socket stays open', async () => {
  const client = await open()
  const cases: [string, Json, number, RegExp][] = [
    ['b1', { audio_file: undefined }, 400, /audio_file is required with endpoint realtime/],
    ['b2', { audio_file: 'not base64!' }, 400, /audio_file must be base64/],
    [
      'b3',
      { model_params: { input_audio_format: 'aiff' } },
      400,
      /input_audio_format must be equal to one of the allowed values/,
    ],
    [
      'b4',
      { model_params: { output_audio_format: 'ogg' } },
      400,
      /output_audio_format must be equal to one of the allowed values/,
    ],
    ['b5', { audio_file: Buffer.from('hello there').toString('base64') }, 400, /Invalid or unsupported audio file/],
    ['b6', { request_source: undefined }, 400, /request_source "override_params"/],
  ]
  for (const [id, extra, status, message] of cases) {
    const body = realtime(id, extra)
    client.send(JSON.parse(JSON.stringify(body)) as Json)
    const msgs = await client.finished(id)
    assert.is(msgs.length, 1, `${id}: ${JSON.stringify(msgs)}`)
    assert.is(msgs[0]!.type, 'error')
    assert.is(msgs[0]!.error.status, status, `${id}: ${JSON.stringify(msgs[0])}`)
    assert.match(msgs[0]!.error.message, message)
  }
  assert.is(client.ws.readyState, WebSocket.OPEN)
  client.send(realtime('ok', { model_params: { modalities: ['text'] } }))
  assert.is((await client.finished('ok', 60_000)).at(-1)!.type, 'response.done')
  client.close()
})

test('vision, audio, speech and rerank over the socket answer as over REST: one response message', async () => {
  const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
  const bodies: Record<string, Json> = {
    vision: { query: 'What is in this picture?', image: `data:image/png;base64,${PNG}` },
    audio: { audio_file: speechWav.toString('base64'), task: 'transcribe' },
    speech: { query: 'Hello from the socket.', voice: 'tara', output_audio_format: 'pcm16' },
    rerank: {
      query: 'How long do cats sleep?',
      documents: [
        'The stock market rose on Friday.',
        'Cats sleep twelve to sixteen hours a day.',
        'Paris is the capital of France.',
      ],
      reranker_model: 'sim-rerank',
    },
  }
  const client = await open(TEST_DEV_TOKEN)
  for (const [endpoint, body] of Object.entries(bodies)) {
    const overRest = await rest(endpoint, { ...body, project_id: 'demo' }, TEST_DEV_TOKEN)
    assert.is(overRest.status, 200, `${endpoint}: ${JSON.stringify(overRest.body).slice(0, 300)}`)
    client.send({ id: endpoint, endpoint, project_id: 'demo', ...body })
    const msgs = await client.finished(endpoint, 60_000)
    assert.is(msgs.length, 1)
    const [m] = msgs
    assert.is(m!.type, 'response', JSON.stringify(m).slice(0, 300))
    assert.is(m!.status, 200)
    const overSocket = m!.body
    assert.is(overSocket.file, overRest.body.file)
    assert.equal(Object.keys(overSocket.response.metadata).sort(), Object.keys(overRest.body.response.metadata).sort())
    if (endpoint === 'vision') assert.type(overSocket.response.response, 'string')
    else assert.equal(overSocket.response.response, overRest.body.response.response, endpoint)
  }
  // A body type's own rules still hold: a service token's own parameters need request_source.
  const svc = await open()
  svc.send({ id: 'sv', endpoint: 'speech', query: 'Hi.', model_name: 'sim-orpheus' })
  const [refused] = await svc.finished('sv')
  assert.is(refused!.type, 'error')
  assert.match(refused!.error.message, /request_source "override_params"/)
  assert.is(svc.ws.readyState, WebSocket.OPEN)
  svc.close()
  client.close()
})

test.run()
