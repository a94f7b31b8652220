import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { speechSettings } from '../../../plugins/speech/speech-settings.js'
import { readWavHeader, wavHeader } from '../../../protocols/audio/wav-header.js'
import { wholeSamples } from '../../../plugins/speech/pcm-stream.js'
import type { ModelConfig } from '../../../schemas/models.schema.js'

const test = suite('plugin speech: settings, WAV headers, sample alignment')

const model = (audio: ModelConfig['audio']): ModelConfig =>
  ({ id: 'm', model_type: 'audio_speech', backend: 'b', audio }) as ModelConfig

test('defaults: whole file, English only, speed honoured, PCM from the server, 24 kHz', () => {
  const s = speechSettings(model({ voices: ['a', 'b'] }))
  assert.equal(
    {
      streaming: s.streaming,
      defaultVoice: s.defaultVoice,
      languages: s.languages,
      speed: s.speed,
      instructions: s.instructions,
      pcmFrom: s.pcmFrom,
      rate: s.sampleRate,
      native: [...s.nativeFormats],
    },
    {
      streaming: false,
      defaultVoice: 'a',
      languages: ['english'],
      speed: true,
      instructions: 'pass',
      pcmFrom: 'pcm',
      rate: 24000,
      native: ['pcm'],
    },
  )
})

test('a voice map onto a voice the server lacks stops the load, naming the model and the entry', () => {
  assert.throws(
    () => speechSettings(model({ voices: ['tara'], voice_map: { alloy: 'vivian' } })),
    /model m: audio\.voice_map: alloy → vivian is not one of its voices \(tara\)/,
  )
  assert.throws(() => speechSettings(model({ voices: ['tara'], default_voice: 'leo' })), /default_voice: leo/)
})

test('a streamed WAV header: 44 bytes, PCM 16-bit mono 24 kHz, both sizes 0xFFFFFFFF', () => {
  const h = wavHeader(undefined, 24000)
  assert.is(h.length, 44)
  assert.is(
    h.toString('hex'),
    '52494646ffffffff57415645666d74201000000001000100c05d000080bb0000020010006461746' + '1ffffffff',
  )
  const whole = wavHeader(480, 24000)
  assert.is(whole.readUInt32LE(4), 36 + 480)
  assert.is(whole.readUInt32LE(40), 480)
})

test('readWavHeader waits for more bytes, then reads the format', () => {
  const h = wavHeader(undefined, 24000)
  assert.is(readWavHeader(h.subarray(0, 30)), undefined)
  assert.equal(readWavHeader(h), {
    audioFormat: 1,
    channels: 1,
    sampleRate: 24000,
    bitsPerSample: 16,
    dataOffset: 44,
    dataBytes: 0xffffffff,
  })
  assert.throws(() => readWavHeader(Buffer.from('OggS and more bytes here')), /not a RIFF\/WAVE stream/)
})

test('wholeSamples carries an odd byte to the next chunk and cuts large chunks', async () => {
  async function* source() {
    yield Buffer.from([1, 2, 3])
    yield Buffer.from([4, 5, 6, 7, 8, 9, 10, 11, 12, 13])
  }
  const out: number[][] = []
  for await (const c of wholeSamples(source(), 4)) out.push([...c])
  assert.equal(out, [
    [1, 2],
    [3, 4, 5, 6],
    [7, 8, 9, 10],
    [11, 12],
  ])
})

test.run()
