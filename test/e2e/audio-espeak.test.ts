import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { dump, load } from 'js-yaml'
import { defaultConfigDir } from '../../kernel/contract/paths.js'
import type { TestGateway } from '../support/gateway.js'
import { decode, hasProgram, mp3Header, parseWav, rms, seconds } from '../support/audio.js'
import { startAudioGateway, zeroAudioTimings } from './audio-gateway.js'

/**
 * espeak-ng as a real local speech engine behind the same route (docs/operator-guide.md): runs
 * only when the espeak-ng program is installed (CI installs it; nothing else needs it); otherwise the suite says so
 * and skips.
 */
const present = hasProgram('espeak-ng')
const test = suite(
  `e2e speech with espeak-ng behind /v1/audio/speech${present ? '' : ' (skipped: espeak-ng is not installed)'}`,
)
let gw: TestGateway

const simModel = { name: 'espeak-en', kind: 'speech', audio: { engine: 'espeak-ng', streaming: true } }
const catalogModel = {
  id: 'espeak-en',
  model_type: 'audio_speech',
  backend: 'sim-speech',
  audio: {
    streaming: true,
    voices: ['tara', 'leah', 'jess', 'leo', 'dan', 'mia', 'zac', 'zoe'],
    voice_map: { alloy: 'tara' },
    native_formats: ['pcm', 'wav'],
  },
}

/** Adds one entry to the `models` list of a YAML config file. */
function withModel(file: string, entry: object): string {
  const doc = load(fs.readFileSync(path.join(defaultConfigDir, file), 'utf8')) as { models: object[] }
  doc.models.push(entry)
  return dump(doc)
}

test.before(async () => {
  if (!present) return
  gw = await startAudioGateway({
    files: {
      'config/models.yaml': withModel('models.yaml', catalogModel),
      'config/simulator.yaml': zeroAudioTimings(withModel('simulator.yaml', simModel)),
    },
  })
})
test.after(async () => gw?.close())

const run = present ? test : test.skip

run('a real voice, streamed as wav: 24 kHz mono, about as long as the sentence takes to say', async () => {
  const res = await gw.openai().audio.speech.create({
    model: 'espeak-en',
    voice: 'alloy',
    input: 'The gateway speaks with a real voice now.',
    response_format: 'wav',
  })
  const wav = parseWav(Buffer.from(await res.arrayBuffer()))
  assert.equal([wav.sampleRate, wav.channels, wav.dataSize], [24000, 1, 0xffffffff])
  assert.ok(seconds(wav) > 1.5 && seconds(wav) < 6, `${seconds(wav)} s`)
  assert.ok(rms(wav.pcm) > 0.01)
})

run('and encoded by the gateway into mp3', async () => {
  const res = await gw
    .openai()
    .audio.speech.create({ model: 'espeak-en', voice: 'leo', input: 'Hello there.', response_format: 'mp3' })
  const bytes = Buffer.from(await res.arrayBuffer())
  assert.equal(mp3Header(bytes), { sampleRate: 24000, channels: 1 })
  const audio = await decode('mp3', bytes)
  assert.is(audio.sampleRate, 24000)
  assert.ok(rms(audio.pcm) > 0.01)
})

test.run()
