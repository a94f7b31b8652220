/**
 * query-speech alone, with a fake kernel.call: the speech route with the Query service's format
 * names mapped onto its own; a streamed reply read whole; a streamed WAV given its true sizes;
 * seconds, characters and cost in the envelope.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import querySpeech from '../../../plugins/query-speech/index.js'
import { withTrueWavSizes } from '../../../plugins/query-speech/whole-audio.js'
import { reply } from '../../../kernel/contract/reply.js'
import { makeKernel, runPlugin } from '../../../bin/testing/harness.js'
import { demoPrincipal, demoQueryAuth, fakeRouteCall } from '../../support/fake-route-call.js'
import type { QueryResponse } from '../../../protocols/query/response.js'

const test = suite('plugin query-speech')
const text = 'Hello there.'

/** A streamed WAV as the speech route sends it: sizes unknown (0xFFFFFFFF), then the samples in chunks. */
function streamedWav(samples: number): AsyncIterable<Uint8Array> {
  const header = Buffer.alloc(44)
  header.write('RIFF', 0, 'ascii')
  header.writeUInt32LE(0xffffffff, 4)
  header.write('WAVEfmt ', 8, 'ascii')
  header.write('data', 36, 'ascii')
  header.writeUInt32LE(0xffffffff, 40)
  return (async function* () {
    yield header
    yield Buffer.alloc(samples)
    yield Buffer.alloc(samples)
  })()
}

function setup(data: () => Uint8Array | AsyncIterable<Uint8Array>, contentType = 'audio/wav') {
  const fake = fakeRouteCall(() => ({
    reply: reply.bytes(contentType, data()),
    model: 'sim-orpheus',
    used: { inputTokens: 3, outputTokens: 82, characters: text.length },
  }))
  const kernel = makeKernel({ call: fake.call })
  const run = (body: unknown) =>
    runPlugin(querySpeech, {}, { kernel, body, principal: demoPrincipal, state: { queryAuth: demoQueryAuth } })
  return { run, calls: fake.calls }
}

type Spoken = QueryResponse<{ audio_base64: string; format: string; sample_rate: number }>

test('wav: the route’s stream read whole, its sizes made true; seconds from the samples', async () => {
  const { run, calls } = setup(() => streamedWav(24000))
  const r = await run({ query: text, output_audio_format: 'wav', voice: 'nova' })
  assert.is(r.error, undefined)
  assert.is(calls[0]!.routeId, 'audio-speech')
  assert.equal(calls[0]!.body, { model: 'sim-orpheus', input: text, response_format: 'wav', voice: 'nova' })
  const body = (r.reply as { body: Spoken }).body
  const file = Buffer.from(body.response.response.audio_base64, 'base64')
  assert.equal([file.length, file.readUInt32LE(4), file.readUInt32LE(40)], [44 + 48000, 48000 + 36, 48000])
  assert.equal([body.response.response.format, body.response.response.sample_rate], ['wav', 24000])
  const m = body.response.metadata
  assert.equal([m.audio_seconds, m.characters, m.voice, m.model_name], [1, text.length, 'nova', 'sim-orpheus'])
  assert.ok(Math.abs((m.cost as number) - (text.length * 15) / 1e6) < 1e-12)
})

test('pcm16 is the route’s pcm; mp3 by default, its seconds from the audio tokens', async () => {
  const pcm = setup(() => new Uint8Array(4800))
  const a = await pcm.run({ query: text, output_audio_format: 'pcm16' })
  assert.is((pcm.calls[0]!.body as { response_format: string }).response_format, 'pcm')
  assert.is((a.reply as { body: Spoken }).body.response.metadata.audio_seconds, 0.1)
  const mp3 = setup(() => new Uint8Array([0xff, 0xf3, 0, 0]), 'audio/mpeg')
  const b = await mp3.run({ query: text })
  assert.is((mp3.calls[0]!.body as { response_format: string }).response_format, 'mp3')
  // 82 audio tokens at 7 per 2048 samples of 24 kHz.
  assert.is(
    (b.reply as { body: Spoken }).body.response.metadata.audio_seconds,
    Math.round(((82 * 2048) / 7 / 24000) * 1000) / 1000,
  )
})

test('withTrueWavSizes leaves what is not the gateway’s 44-byte WAV alone', () => {
  const other = Buffer.from('ID3 not a wav at all, but long enough to have forty-four bytes')
  assert.ok(withTrueWavSizes(Buffer.from(other)).equals(other))
})

test.run()
