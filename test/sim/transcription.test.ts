import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startSimulator, type RunningSimulator, type SimConfigInput } from '../../sim/index.js'
import { toneWav } from '../support/audio.js'
import { encodePcm } from '../../plugins/speech/pcm-encoders.js'

const test = suite<{ sim: RunningSimulator }>('sim: transcription and translation (durations from the audio sent)')

const models: SimConfigInput['models'] = [
  { name: 'whisper', kind: 'transcription', audio: { translation: true } },
  {
    name: 'parakeet',
    kind: 'transcription',
    audio: {
      transcript_formats: ['json', 'text', 'srt', 'vtt', 'verbose_json'],
      duration_type: 'number',
      language_style: 'name',
      segment_seconds: 4,
    },
  },
]

test.before(async (ctx) => {
  ctx.sim = await startSimulator({ models })
})
test.after(async (ctx) => ctx.sim.close())

function post(sim: RunningSimulator, path: string, fields: Record<string, string>, file: Buffer, filename = 'a.wav') {
  const form = new FormData()
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  form.append('file', new Blob([file]), filename)
  return fetch(`${sim.url}${path}`, { method: 'POST', body: form })
}

interface Verbose {
  language: string
  duration: string | number
  segments: { start: number; end: number; text: string }[]
}

/** 3.7 s of tone, 16-bit mono at 24 kHz, as raw PCM (the encoders' input). */
const tone = toneWav(3.7, 24000).subarray(44)
/** The tone as the gateway encodes it (LAME, libFLAC, libopus in Ogg). */
const encoded: Record<string, () => Promise<Buffer>> = {
  mp3: () => encodePcm('mp3', tone, 24000, new AbortController().signal),
  flac: () => encodePcm('flac', tone, 24000, new AbortController().signal),
  ogg: () => encodePcm('opus', tone, 24000, new AbortController().signal),
}

/**
 * A LAME Info frame (what LAME puts first in an mp3 it writes to a file) for `frames` frames of
 * MPEG-2 layer III at 24 kHz mono, with the encoder's delay and padding in samples: a silent
 * frame holding the tag "Info", its flags (1: frame count present), the count, then LAME's
 * extension, whose bytes 21 to 23 hold delay and padding in 12 bits each.
 */
function lameInfoFrame(header: number, frames: number, delay: number, padding: number): Buffer {
  const frame = Buffer.alloc(192) // 64 kb/s at 24 kHz: 72 * 64000 / 24000 bytes, no padding slot
  frame.writeUInt32BE((header & ~0x200) >>> 0, 0)
  const tag = 4 + 9 // after the header and MPEG-2 mono side information
  frame.write('Info', tag, 'latin1')
  frame.writeUInt32BE(1, tag + 4)
  frame.writeUInt32BE(frames, tag + 8)
  const lame = tag + 12
  frame.write('LAME3.100', lame, 'latin1')
  frame[lame + 21] = delay >> 4
  frame[lame + 22] = ((delay & 0x0f) << 4) | (padding >> 8)
  frame[lame + 23] = padding & 0xff
  return frame
}

test('vLLM shape: verbose_json duration a string, language a code, segments over the real length', async ({ sim }) => {
  const res = await post(
    sim,
    '/v1/audio/transcriptions',
    { model: 'whisper', response_format: 'verbose_json' },
    toneWav(12.5),
  )
  const v = (await res.json()) as Verbose
  assert.is(v.duration, '12.50')
  assert.is(v.language, 'en')
  assert.equal(
    v.segments.map((s) => [s.start, s.end]),
    [
      [0, 5],
      [5, 10],
      [10, 12.5],
    ],
  )
})

test('mp3, flac and ogg/opus: durations read from the files themselves', async ({ sim }) => {
  for (const [ext, make] of Object.entries(encoded)) {
    const res = await post(
      sim,
      '/v1/audio/transcriptions',
      { model: 'parakeet', response_format: 'verbose_json' },
      await make(),
      `a.${ext}`,
    )
    const v = (await res.json()) as Verbose
    assert.type(v.duration, 'number')
    // flac and opus are exact. The gateway's mp3 has no Info header, so its frames are
    // counted, encoder delay and padding included: a few 24 ms frames over.
    if (ext === 'mp3') assert.ok((v.duration as number) >= 3.7 && (v.duration as number) < 3.8, `mp3: ${v.duration}`)
    else assert.is(v.duration, 3.7, ext)
  }
})

test("an mp3 with LAME's Info header: exact, delay and padding taken off", async ({ sim }) => {
  const frames = await encoded.mp3!()
  // The gateway's mp3 is constant bitrate: every 576-sample frame is 192 bytes.
  assert.is(frames.length % 192, 0)
  const count = frames.length / 192
  const delay = 1105 // LAME's encoder delay plus the decoder's 529 samples
  const mp3 = Buffer.concat([
    lameInfoFrame(frames.readUInt32BE(0), count, delay, count * 576 - delay - 3.7 * 24000),
    frames,
  ])
  const v = (await (
    await post(sim, '/v1/audio/transcriptions', { model: 'parakeet', response_format: 'verbose_json' }, mp3, 'a.mp3')
  ).json()) as Verbose
  assert.is(v.duration, 3.7)
})

test('vLLM refuses srt; an OpenAI-like server renders it', async ({ sim }) => {
  const refused = await post(sim, '/v1/audio/transcriptions', { model: 'whisper', response_format: 'srt' }, toneWav(1))
  assert.is(refused.status, 400)
  assert.is(
    ((await refused.json()) as { error: { message: string } }).error.message,
    'Currently only support response_format `json`, `text` or `verbose_json`',
  )
  const srt = await post(sim, '/v1/audio/transcriptions', { model: 'parakeet', response_format: 'srt' }, toneWav(5))
  assert.match(await srt.text(), /^1\n00:00:00,000 --> 00:00:04,000\n.+\n\n2\n00:00:04,000 --> 00:00:05,000\n/)
})

test('translations: English; a model without translation answers 400; not audio answers 400', async ({ sim }) => {
  const ok = await post(
    sim,
    '/v1/audio/translations',
    { model: 'whisper', response_format: 'verbose_json', language: 'de' },
    toneWav(2),
  )
  const v = (await ok.json()) as Verbose
  assert.is(v.language, 'en')
  assert.match(v.segments[0]!.text, /^ \(English\)/)
  const no = await post(sim, '/v1/audio/translations', { model: 'parakeet' }, toneWav(2))
  assert.is(no.status, 400)
  const junk = await post(
    sim,
    '/v1/audio/transcriptions',
    { model: 'whisper' },
    Buffer.from('this is not audio at all'),
  )
  assert.is(junk.status, 400)
  assert.match(
    ((await junk.json()) as { error: { message: string } }).error.message,
    /^Invalid or unsupported audio file/,
  )
})

test.run()
