import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import transcription from '../../../plugins/transcription/index.js'
import { makeKernel, runPlugin } from '../../../bin/testing/harness.js'
import { startFakeUpstream, type FakeUpstream } from '../../support/fake-upstream.js'
import type { Kernel } from '../../../kernel/contract/kernel.js'
import type { ExchangeState } from '../../../kernel/contract/exchange.js'
import type { JsonReply, TextReply } from '../../../kernel/contract/reply.js'

const test = suite('plugin transcription (isolation, scripted transcription server)')
let upstream: FakeUpstream
let kernel: Kernel

test.before(async () => {
  upstream = await startFakeUpstream()
  kernel = makeKernel({ simulatorUrl: upstream.url })
})
test.after(async () => upstream.close())

const file = { filename: 'a.wav', contentType: 'audio/wav', data: Buffer.from('RIFF....WAVE') }
const stateFor = (id: string, fields: Record<string, string | string[]>): ExchangeState => ({
  model: { requested: id, model: kernel.catalog.model(id)! },
  upload: { file, fields: { model: id, ...fields } },
})
/** vLLM's verbose_json: duration a string, language a code. */
const vllmVerbose = {
  task: 'transcribe',
  language: 'en',
  duration: '7.25',
  text: 'Hello there. General Kenobi.',
  segments: [
    { id: 0, seek: 0, start: 0, end: 3.32, text: ' Hello there.' },
    { id: 1, seek: 0, start: '3.32', end: '7.25', text: ' General Kenobi.' },
  ],
}
const serveJson = (body: unknown) =>
  upstream.handle((_req, _b, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
  )
const sentForm = () => String(upstream.received.at(-1)!.body)
const field = (form: string, name: string) =>
  new RegExp(`name="${name.replace(/[[\]]/g, '\\$&')}"\\r\\n\\r\\n([^\\r]*)\\r\\n`).exec(form)?.[1]

test('srt from a server without srt: verbose_json is asked for, and the gateway renders the cues', async () => {
  serveJson(vllmVerbose)
  const run = await runPlugin(
    transcription,
    {},
    { kernel, state: stateFor('sim-whisper', { response_format: 'srt', language: 'en', prompt: 'Kenobi' }) },
  )
  assert.is(run.error, undefined)
  const form = sentForm()
  assert.is(upstream.received.at(-1)!.path, '/v1/audio/transcriptions')
  assert.is(field(form, 'model'), 'sim-whisper')
  assert.is(field(form, 'response_format'), 'verbose_json')
  assert.is(field(form, 'language'), 'en')
  assert.is(field(form, 'prompt'), 'Kenobi')
  assert.match(form, /name="file"; filename="a.wav"\r\nContent-Type: audio\/wav\r\n\r\nRIFF\.\.\.\.WAVE/)
  const reply = run.reply as TextReply
  assert.is(
    reply.text,
    '1\n00:00:00,000 --> 00:00:03,320\nHello there.\n\n2\n00:00:03,320 --> 00:00:07,250\nGeneral Kenobi.\n\n',
  )
})

test('vtt rendered the same way', async () => {
  serveJson(vllmVerbose)
  const run = await runPlugin(transcription, {}, { kernel, state: stateFor('sim-whisper', { response_format: 'vtt' }) })
  const reply = run.reply as TextReply
  assert.is(reply.contentType, 'text/vtt; charset=utf-8')
  assert.is(
    reply.text,
    'WEBVTT\n\n00:00:00.000 --> 00:00:03.320\nHello there.\n\n00:00:03.320 --> 00:00:07.250\nGeneral Kenobi.\n\n',
  )
})

test('verbose_json normalized: duration and segment times numbers, language by name', async () => {
  serveJson(vllmVerbose)
  const run = await runPlugin(
    transcription,
    {},
    { kernel, state: stateFor('sim-whisper', { response_format: 'verbose_json' }) },
  )
  const body = (run.reply as JsonReply).body as {
    duration: unknown
    language: unknown
    segments: { start: unknown; end: unknown }[]
  }
  assert.is(body.duration, 7.25)
  assert.is(body.language, 'english')
  assert.equal(
    body.segments.map((s) => [s.start, s.end]),
    [
      [0, 3.32],
      [3.32, 7.25],
    ],
  )
  assert.is(run.ex.state.transcription?.duration, 7.25)
})

test('text: the server is asked for verbose_json (its duration meters the request), and the text is rendered from it', async () => {
  serveJson(vllmVerbose)
  const run = await runPlugin(
    transcription,
    {},
    { kernel, state: stateFor('sim-whisper', { response_format: 'text' }) },
  )
  assert.is(field(sentForm(), 'response_format'), 'verbose_json')
  assert.is((run.reply as TextReply).text, 'Hello there. General Kenobi.')
  assert.is(run.ex.usage.used().audioSeconds, 7.25)
  assert.is(run.ex.usage.used().inputTokens, Math.ceil(7.25 * 50), "Whisper's 50 audio tokens a second")
})

test('json by default; a server that sends only {text} still yields one srt cue over the whole', async () => {
  serveJson({ text: 'Only text.' })
  const json = await runPlugin(transcription, {}, { kernel, state: stateFor('sim-whisper', {}) })
  assert.equal((json.reply as JsonReply).body, { text: 'Only text.' })
  serveJson({ text: 'Only text.' })
  const srt = await runPlugin(transcription, {}, { kernel, state: stateFor('sim-whisper', { response_format: 'srt' }) })
  assert.is((srt.reply as TextReply).text, '1\n00:00:00,000 --> 00:00:00,000\nOnly text.\n\n')
})

test('translation goes to /v1/audio/translations and reports English', async () => {
  serveJson({ ...vllmVerbose, task: 'translate', language: 'fr' })
  const run = await runPlugin(
    transcription,
    { task: 'translate' },
    { kernel, state: stateFor('sim-whisper', { response_format: 'verbose_json' }) },
  )
  assert.is(upstream.received.at(-1)!.path, '/v1/audio/translations')
  const body = (run.reply as JsonReply).body as { task: string; language: string }
  assert.equal([body.task, body.language], ['translate', 'english'])
})

test('refusals: translation by a model without it, an unknown format, a model of another type', async () => {
  const before = upstream.received.length
  const noTranslation = await runPlugin(
    transcription,
    { task: 'translate' },
    { kernel, state: stateFor('sim-parakeet', {}) },
  )
  assert.equal(
    [noTranslation.error?.status, noTranslation.error?.message],
    [400, 'model sim-parakeet does not translate; use a model with translation'],
  )
  const format = await runPlugin(
    transcription,
    {},
    { kernel, state: stateFor('sim-whisper', { response_format: 'mp4' }) },
  )
  assert.equal(
    [format.error?.status, format.error?.message],
    [400, 'response_format mp4 is not one of json, text, srt, vtt, verbose_json'],
  )
  const speech = await runPlugin(transcription, {}, { kernel, state: stateFor('sim-orpheus', {}) })
  assert.equal([speech.error?.status, speech.error?.message], [400, 'model sim-orpheus is not a transcription model'])
  assert.is(upstream.received.length, before)
})

test("the server's error passes through; unreadable JSON is a 502", async () => {
  upstream.handle((_req, _b, res) =>
    res.writeHead(400, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        error: {
          message: 'Currently only support response_format `text`, `json` or `verbose_json`',
          type: 'BadRequestError',
          code: 400,
        },
      }),
    ),
  )
  const err = await runPlugin(transcription, {}, { kernel, state: stateFor('sim-whisper', {}) })
  assert.equal(
    [err.error?.status, err.error?.message],
    [400, 'Currently only support response_format `text`, `json` or `verbose_json`'],
  )
  upstream.handle((_req, _b, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{not json'))
  const bad = await runPlugin(transcription, {}, { kernel, state: stateFor('sim-whisper', {}) })
  assert.equal([bad.error?.status, bad.error?.message], [502, 'upstream request failed'])
})

test.run()
