/**
 * The Query service's media body types over HTTP (pipelines/query.yaml: /query/v1/image,
 * /audio, /speech): both token kinds, the query response envelope with usage_metric and cost,
 * bad bodies as 400s in the query error shape naming the field, 401 without a token, and each
 * model call in the usage records under the project's key `demo`.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestGateway, TEST_DEV_TOKEN, TEST_KEY, TEST_SERVICE_TOKEN, type TestGateway } from '../support/gateway.js'
import { readPng } from '../support/png.js'
import { mp3Header, parseWav, toneWav } from '../support/audio.js'

const test = suite('e2e query service: image, audio and speech bodies')
const ADMIN = 'sk-admin-query-media'
let gw: TestGateway

test.before(async () => {
  gw = await startTestGateway({ env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN } })
})
test.after(() => gw.close())

interface Metadata {
  sources: Record<string, unknown>
  query_id: string
  model_name: string
  cost: number
  usage_metric: {
    input_token_count: number
    output_token_count: number
    total_token_count: number
    input_token_cost: number
    output_token_cost: number
    total_token_cost: number
    input_token_details: Record<string, number>
  }
  [extra: string]: unknown
}

interface Answer<R> {
  status: number
  body: {
    response: { response: R; metadata: Metadata }
    file: string
    query_id: string
    error?: { status: number; type: string; message: string }
  }
}

async function post<R = unknown>(
  route: string,
  body: unknown,
  token: string | null = TEST_SERVICE_TOKEN,
): Promise<Answer<R>> {
  const res = await fetch(`${gw.url}/query/v1/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as Answer<R>['body'] }
}

async function records(route: string): Promise<Array<Record<string, unknown>>> {
  const res = await fetch(`${gw.url}/admin/records?key=demo&limit=200`, {
    headers: { authorization: `Bearer ${ADMIN}` },
  })
  assert.is(res.status, 200)
  return ((await res.json()) as { data: Array<Record<string, unknown>> }).data.filter((r) => r.route === route)
}

/** The envelope of spec 001, and a usage_metric whose parts add up. */
function checkEnvelope(body: Answer<unknown>['body'], file: string): Metadata {
  assert.is(body.file, file)
  const m = body.response.metadata
  assert.is(body.query_id, m.query_id)
  assert.ok(m.query_id.length > 0)
  assert.equal(m.sources, {})
  const u = m.usage_metric
  assert.is(u.total_token_count, u.input_token_count + u.output_token_count)
  assert.is(
    Object.values(u.input_token_details).reduce((a, b) => a + b, 0),
    u.input_token_count,
  )
  assert.is(u.input_token_details.user_query, u.input_token_count)
  return m
}

// ---- image

test('image: a developer token with project_id gets PNGs in the envelope, priced by their tokens', async () => {
  const { status, body } = await post<Array<{ b64_json: string; mime_type: string }>>(
    'image',
    { project_id: 'demo', query: 'a lighthouse at dusk', size: '256x256', n: 2 },
    TEST_DEV_TOKEN,
  )
  assert.is(status, 200, JSON.stringify(body))
  const images = body.response.response
  assert.is(images.length, 2)
  for (const image of images) {
    assert.is(image.mime_type, 'image/png')
    const png = readPng(Buffer.from(image.b64_json, 'base64'))
    assert.equal([png.width, png.height], [256, 256])
  }
  const m = checkEnvelope(body, 'image')
  assert.equal([m.model_name, m.images, m.size], ['sim-image', 2, '256x256'])
  assert.is(m.usage_metric.output_token_count, 2 * 66)
  // sim-image: $5 per million tokens in, $40 per million out.
  const cost = (m.usage_metric.input_token_count * 5 + 2 * 66 * 40) / 1e6
  assert.ok(Math.abs(m.usage_metric.total_token_cost - cost) < 1e-12, `token cost ${m.usage_metric.total_token_cost}`)
  assert.ok(Math.abs(m.cost - cost) < 1e-12)
  const recorded = (await records('images-generations'))[0]!
  assert.equal(
    [recorded.key, recorded.model, recorded.completion_tokens, recorded.prompt_tokens],
    ['demo', 'sim-image', 132, m.usage_metric.input_token_count],
  )
  assert.ok(Math.abs((recorded.value as number) - m.cost) < 1e-12)
})

test('image: a service token without project_id; the same prompt gives the same image', async () => {
  const a = await post<Array<{ b64_json: string }>>('image', { query: 'a lighthouse at dusk', size: '256x256' })
  const b = await post<Array<{ b64_json: string }>>('image', {
    endpoint: 'image',
    project_id: 'demo',
    query: 'a lighthouse at dusk',
    size: '256x256',
    model_name: 'sim-image',
    model_provider: 'gateway',
    request_source: 'override_params',
  })
  assert.equal([a.status, b.status], [200, 200])
  assert.is(a.body.response.response[0]!.b64_json, b.body.response.response[0]!.b64_json)
})

test('image: bad bodies are 400s in the query error shape naming the field; no token 401', async () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ size: '256x256' }, /required property 'query'/],
    [{ query: 'x', n: 0 }, /\/n must be >= 1/],
    [{ query: 'x', size: 'huge' }, /\/size must match pattern/],
    [{ query: 'x', colour: 'red' }, /body must NOT have additional properties 'colour'/],
    [{ query: 'x', endpoint: 'query' }, /\/endpoint must be equal to constant/],
    [
      { query: 'x', model_name: 'sim-image' },
      /a service token sends its own parameters only with request_source "override_params" \(sent: model_name\)/,
    ],
    [
      { query: 'x', model_name: 'sim-chat-instruct', request_source: 'override_params' },
      /model_name sim-chat-instruct is not an image generation model/,
    ],
    [{ query: 'x', model_provider: 'openai', request_source: 'override_params' }, /model_provider openai/],
    // The model's server refuses what it does not serve: its message passes through.
    [{ query: 'x', size: '300x300' }, /'300x300' is not one of/],
    [{ query: 'x', n: 5 }, /5 is greater than the maximum of 4 - 'n'/],
  ]
  for (const [body, message] of cases) {
    const { status, body: answer } = await post('image', body)
    assert.is(status, 400, JSON.stringify(body))
    assert.is(answer.error!.status, 400)
    assert.is(answer.error!.type, 'invalid_request')
    assert.match(answer.error!.message, message)
  }
  const unknown = await post('image', { query: 'x', model_name: 'nope', request_source: 'override_params' })
  assert.equal([unknown.status, unknown.body.error!.message], [404, 'model_name nope is not in the catalog'])
  const none = await post('image', { query: 'x' }, null)
  assert.equal(
    [none.status, none.body.error!.type, none.body.error!.message],
    [401, 'unauthenticated', 'missing bearer token'],
  )
  const dev = await post('image', { query: 'x' }, TEST_DEV_TOKEN)
  assert.equal([dev.status, dev.body.error!.message], [400, 'project_id is required with a developer token'])
})

// ---- audio

const wavBase64 = (seconds: number) => toneWav(seconds).toString('base64')

test('audio: transcribe with a developer token; the seconds and their price in metadata; recorded under demo', async () => {
  const { status, body } = await post<string>(
    'audio',
    { project_id: 'demo', audio_file: wavBase64(2), filename: 'tone.wav', task: 'transcribe', language: 'en' },
    TEST_DEV_TOKEN,
  )
  assert.is(status, 200, JSON.stringify(body))
  assert.type(body.response.response, 'string')
  assert.ok(body.response.response.length > 0)
  const m = checkEnvelope(body, 'audio')
  assert.is(m.model_name, 'sim-whisper')
  assert.is(m.task, 'transcribe')
  assert.ok(Math.abs((m.audio_seconds as number) - 2) < 0.01, `seconds ${m.audio_seconds}`)
  // sim-whisper: $0.006 a minute; tokens carry no price for it.
  assert.ok(Math.abs(m.cost - (2 / 60) * 0.006) < 1e-9, `cost ${m.cost}`)
  assert.ok(m.usage_metric.input_token_count > 0 && m.usage_metric.output_token_count > 0)
  const recorded = (await records('audio-transcriptions-internal'))[0]!
  assert.equal([recorded.key, recorded.model, recorded.status], ['demo', 'sim-whisper', 200])
  assert.ok(Math.abs((recorded.value as number) - m.cost) < 1e-12)
})

test('audio: translate with a service token (a data URL); a model that does not translate is 400', async () => {
  const { status, body } = await post<string>('audio', {
    audio_file: `data:audio/wav;base64,${wavBase64(1)}`,
    task: 'translate',
  })
  assert.is(status, 200, JSON.stringify(body))
  assert.is(checkEnvelope(body, 'audio').task, 'translate')
  assert.is((await records('audio-translations-internal'))[0]!.key, 'demo')
  const parakeet = await post('audio', {
    audio_file: wavBase64(1),
    task: 'translate',
    model_name: 'sim-parakeet',
    request_source: 'override_params',
  })
  assert.equal(
    [parakeet.status, parakeet.body.error!.message],
    [400, 'model_name sim-parakeet does not translate; use a model with translation'],
  )
})

test('audio: bad bodies are 400s naming the field; no token 401', async () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ audio_file: wavBase64(1) }, /required property 'task'/],
    [{ task: 'transcribe' }, /required property 'audio_file'/],
    [{ audio_file: wavBase64(1), task: 'summarize' }, /\/task must be equal to one of the allowed values/],
    [{ audio_file: 'not base64!', task: 'transcribe' }, /audio_file must be base64/],
    [
      { audio_file: wavBase64(1), task: 'transcribe', prompt: 'x' },
      /body must NOT have additional properties 'prompt'/,
    ],
    [
      { audio_file: wavBase64(1), task: 'transcribe', model_name: 'sim-orpheus', request_source: 'override_params' },
      /model_name sim-orpheus is not a transcription model/,
    ],
    // Not audio at all: the model's server says so, and its message passes through.
    [
      { audio_file: Buffer.from('hello there').toString('base64'), task: 'transcribe' },
      /^Invalid or unsupported audio file/,
    ],
  ]
  for (const [body, message] of cases) {
    const { status, body: answer } = await post('audio', body)
    assert.is(status, 400, JSON.stringify(body))
    assert.is(answer.error!.type, 'invalid_request')
    assert.match(answer.error!.message, message)
  }
  assert.is((await post('audio', { audio_file: wavBase64(1), task: 'transcribe' }, null)).status, 401)
})

// ---- speech

const text = 'Hello from the query service.'

test('speech: mp3 by default with a service token; characters and their price in metadata; recorded under demo', async () => {
  const { status, body } = await post<{ audio_base64: string; format: string; sample_rate: number }>('speech', {
    query: text,
  })
  assert.is(status, 200, JSON.stringify(body))
  const answer = body.response.response
  assert.equal([answer.format, answer.sample_rate], ['mp3', 24000])
  const mp3 = Buffer.from(answer.audio_base64, 'base64')
  assert.is(mp3Header(mp3).sampleRate, 24000)
  const m = checkEnvelope(body, 'speech')
  assert.is(m.model_name, 'sim-orpheus')
  assert.is(m.characters, text.length)
  assert.ok((m.audio_seconds as number) > 0.5, `seconds ${m.audio_seconds}`)
  // sim-orpheus: $15 per million characters.
  assert.ok(Math.abs(m.cost - (text.length * 15) / 1e6) < 1e-12, `cost ${m.cost}`)
  const recorded = (await records('audio-speech'))[0]!
  assert.equal([recorded.key, recorded.model, recorded.status], ['demo', 'sim-orpheus', 200])
  assert.ok(Math.abs((recorded.value as number) - m.cost) < 1e-12)
})

test('speech: wav (with its true sizes) and pcm16 with a developer token; a voice and another model', async () => {
  const wav = await post<{ audio_base64: string; format: string }>(
    'speech',
    { project_id: 'demo', query: text, output_audio_format: 'wav', voice: 'nova' },
    TEST_DEV_TOKEN,
  )
  assert.is(wav.status, 200, JSON.stringify(wav.body))
  const file = Buffer.from(wav.body.response.response.audio_base64, 'base64')
  assert.is(file.readUInt32LE(4), file.length - 8)
  assert.is(file.readUInt32LE(40), file.length - 44)
  const decoded = parseWav(file)
  assert.is(decoded.sampleRate, 24000)
  assert.ok(Math.abs((wav.body.response.metadata.audio_seconds as number) - (file.length - 44) / 2 / 24000) < 0.001)
  const pcm = await post<{ audio_base64: string; format: string }>(
    'speech',
    { project_id: 'demo', query: text, output_audio_format: 'pcm16', model_name: 'sim-qwen3-tts', language: 'english' },
    TEST_DEV_TOKEN,
  )
  assert.is(pcm.status, 200, JSON.stringify(pcm.body))
  assert.is(pcm.body.response.response.format, 'pcm16')
  const bytes = Buffer.from(pcm.body.response.response.audio_base64, 'base64')
  assert.is(bytes.length % 2, 0)
  assert.ok(Math.abs((pcm.body.response.metadata.audio_seconds as number) - bytes.length / 2 / 24000) < 0.001)
  assert.is(pcm.body.response.metadata.model_name, 'sim-qwen3-tts')
})

test('speech: bad bodies are 400s naming the field; no token 401', async () => {
  const cases: Array<[unknown, RegExp]> = [
    [{}, /required property 'query'/],
    [{ query: text, output_audio_format: 'ogg' }, /\/output_audio_format must be equal to one of the allowed values/],
    [{ query: '' }, /\/query must NOT have fewer than 1 characters/],
    [{ query: text, input: text }, /body must NOT have additional properties 'input'/],
    [{ query: text, voice: 'nobody' }, /voice nobody is not available for model sim-orpheus/],
    [
      { query: text, model_name: 'sim-image', request_source: 'override_params' },
      /model_name sim-image is not a speech model/,
    ],
  ]
  for (const [body, message] of cases) {
    const { status, body: answer } = await post('speech', body)
    assert.is(status, 400, JSON.stringify(body))
    assert.is(answer.error!.type, 'invalid_request')
    assert.match(answer.error!.message, message)
  }
  assert.is((await post('speech', { query: text }, 'qt-wrong')).status, 401)
})

test.run()
