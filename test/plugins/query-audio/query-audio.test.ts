/**
 * query-audio alone, with a fake kernel.call: transcribe and translate go to their JSON twin
 * routes with the base64 as sent; the transcript, seconds and cost in the envelope; base64 and
 * model refusals before any call.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import queryAudio from '../../../plugins/query-audio/index.js'
import { reply } from '../../../kernel/contract/reply.js'
import { makeKernel, runPlugin } from '../../../bin/testing/harness.js'
import { demoPrincipal, demoQueryAuth, fakeRouteCall } from '../../support/fake-route-call.js'
import type { QueryResponse } from '../../../protocols/query/response.js'

const test = suite('plugin query-audio')
const audio = Buffer.from('RIFF fake wav').toString('base64')

function setup() {
  const fake = fakeRouteCall(() => ({
    reply: reply.json({ text: 'Hello there.', language: 'english', duration: 3 }),
    model: 'sim-whisper',
    used: { inputTokens: 150, outputTokens: 3, audioSeconds: 3 },
  }))
  const kernel = makeKernel({ call: fake.call })
  const run = (body: unknown, options: unknown = {}) =>
    runPlugin(queryAudio, options, { kernel, body, principal: demoPrincipal, state: { queryAuth: demoQueryAuth } })
  return { run, calls: fake.calls }
}

test('transcribe: the twin route with the file as sent; the transcript, seconds and price', async () => {
  const { run, calls } = setup()
  const r = await run({ audio_file: audio, task: 'transcribe', language: 'en', query: 'Sluice' })
  assert.is(r.error, undefined)
  assert.is(calls[0]!.routeId, 'audio-transcriptions-internal')
  assert.equal(calls[0]!.body, {
    model: 'sim-whisper',
    file_base64: audio,
    filename: 'audio.wav',
    response_format: 'verbose_json',
    language: 'en',
    prompt: 'Sluice',
  })
  assert.equal(calls[0]!.options?.principal, demoPrincipal)
  const body = (r.reply as { body: QueryResponse<string> }).body
  assert.is(body.response.response, 'Hello there.')
  assert.is(body.file, 'audio')
  const m = body.response.metadata
  assert.equal([m.task, m.language, m.audio_seconds, m.model_name], ['transcribe', 'english', 3, 'sim-whisper'])
  assert.ok(Math.abs((m.cost as number) - (3 / 60) * 0.006) < 1e-12)
  assert.equal(
    [m.usage_metric.input_token_count, m.usage_metric.output_token_count, m.usage_metric.total_token_cost],
    [150, 3, 0],
  )
})

test('translate: the translations twin; a model that does not translate is refused first', async () => {
  const { run, calls } = setup()
  await run({ audio_file: `data:audio/mpeg;base64,${audio}`, task: 'translate', filename: 'talk.mp3' })
  assert.is(calls[0]!.routeId, 'audio-translations-internal')
  // A data URL reaches the twin as plain base64, with its type.
  assert.equal(calls[0]!.body, {
    model: 'sim-whisper',
    file_base64: audio,
    content_type: 'audio/mpeg',
    filename: 'talk.mp3',
    response_format: 'verbose_json',
  })
  const r = await run({
    audio_file: audio,
    task: 'translate',
    model_name: 'sim-parakeet',
    request_source: 'override_params',
  })
  assert.equal(
    [r.error?.status, r.error?.message],
    [400, 'model_name sim-parakeet does not translate; use a model with translation'],
  )
  assert.is(calls.length, 1)
})

test('refusals before any call: not base64, too large, not a transcription model', async () => {
  const { run, calls } = setup()
  const bad = await run({ audio_file: 'nope!', task: 'transcribe' })
  assert.equal([bad.error?.status, bad.error?.message], [400, 'audio_file must be base64 (or a base64 data URL)'])
  const large = await run(
    { audio_file: Buffer.alloc(30).toString('base64'), task: 'transcribe' },
    { max_file_bytes: 10 },
  )
  assert.equal([large.error?.status, large.error?.message], [413, 'audio_file is larger than 10 bytes'])
  const speech = await run({
    audio_file: audio,
    task: 'transcribe',
    model_name: 'sim-orpheus',
    request_source: 'override_params',
  })
  assert.equal(
    [speech.error?.status, speech.error?.message],
    [400, 'model_name sim-orpheus is not a transcription model'],
  )
  assert.is(calls.length, 0)
})

test.run()
