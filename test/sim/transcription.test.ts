import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { startSimulator, type RunningSimulator, type SimConfigInput } from '../../sim/index.js'
import { toneWav } from '../support/audio.js'

const test = suite<{ sim: RunningSimulator }>('sim: transcription and translation (durations from the audio sent)')

const models: SimConfigInput['models'] = [
  { name: 'whisper', kind: 'transcription', audio: { translation: true } },
  { name: 'parakeet', kind: 'transcription', audio: { transcript_formats: ['json', 'text', 'srt', 'vtt', 'verbose_json'], duration_type: 'number', language_style: 'name', segment_seconds: 4 } },
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
const encoded: Record<string, () => Buffer> = {
  mp3: () => execFileSync('lame', ['--quiet', '-r', '-s', '24', '--bitwidth', '16', '--signed', '--little-endian', '-m', 'm', '-', '-'], { input: tone, stdio: ['pipe', 'pipe', 'ignore'] }),
  flac: () => execFileSync('flac', ['--silent', '--force-raw-format', '--endian=little', '--sign=signed', '--channels=1', '--bps=16', '--sample-rate=24000', `--input-size=${tone.length}`, '--stdout', '-'], { input: tone, stdio: ['pipe', 'pipe', 'ignore'] }),
  ogg: () => execFileSync('opusenc', ['--quiet', '--raw', '--raw-rate', '24000', '--raw-chan', '1', '--raw-bits', '16', '-', '-'], { input: tone }),
}

test('vLLM shape: verbose_json duration a string, language a code, segments over the real length', async ({ sim }) => {
  const res = await post(sim, '/v1/audio/transcriptions', { model: 'whisper', response_format: 'verbose_json' }, toneWav(12.5))
  const v = (await res.json()) as Verbose
  assert.is(v.duration, '12.50')
  assert.is(v.language, 'en')
  assert.equal(v.segments.map((s) => [s.start, s.end]), [[0, 5], [5, 10], [10, 12.5]])
})

test('mp3, flac and ogg/opus: durations read from the files themselves', async ({ sim }) => {
  for (const [ext, make] of Object.entries(encoded)) {
    const res = await post(sim, '/v1/audio/transcriptions', { model: 'parakeet', response_format: 'verbose_json' }, make(), `a.${ext}`)
    const v = (await res.json()) as Verbose
    assert.type(v.duration, 'number')
    // flac and opus are exact. An mp3 piped out of LAME has no Info header, so its frames are
    // counted, encoder delay and padding included: a few 24 ms frames over.
    if (ext === 'mp3') assert.ok((v.duration as number) >= 3.7 && (v.duration as number) < 3.8, `mp3: ${v.duration}`)
    else assert.is(v.duration, 3.7, ext)
  }
})

test('a VBR mp3 with a Xing header (LAME, written to a file): exact, delay and padding taken off', async ({ sim }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sim-mp3-'))
  const out = path.join(dir, 'a.mp3')
  execFileSync('lame', ['--quiet', '-V', '2', '-r', '-s', '24', '--bitwidth', '16', '--signed', '--little-endian', '-m', 'm', '-', out], { input: tone, stdio: ['pipe', 'ignore', 'ignore'] })
  const mp3 = fs.readFileSync(out)
  fs.rmSync(dir, { recursive: true })
  assert.ok(mp3.includes('Info') || mp3.includes('Xing'))
  const v = (await (await post(sim, '/v1/audio/transcriptions', { model: 'parakeet', response_format: 'verbose_json' }, mp3, 'a.mp3')).json()) as Verbose
  assert.is(v.duration, 3.7)
})

test('vLLM refuses srt; an OpenAI-like server renders it', async ({ sim }) => {
  const refused = await post(sim, '/v1/audio/transcriptions', { model: 'whisper', response_format: 'srt' }, toneWav(1))
  assert.is(refused.status, 400)
  assert.is(((await refused.json()) as { error: { message: string } }).error.message, 'Currently only support response_format `json`, `text` or `verbose_json`')
  const srt = await post(sim, '/v1/audio/transcriptions', { model: 'parakeet', response_format: 'srt' }, toneWav(5))
  assert.match(await srt.text(), /^1\n00:00:00,000 --> 00:00:04,000\n.+\n\n2\n00:00:04,000 --> 00:00:05,000\n/)
})

test('translations: English; a model without translation answers 400; not audio answers 400', async ({ sim }) => {
  const ok = await post(sim, '/v1/audio/translations', { model: 'whisper', response_format: 'verbose_json', language: 'de' }, toneWav(2))
  const v = (await ok.json()) as Verbose
  assert.is(v.language, 'en')
  assert.match(v.segments[0]!.text, /^ \(English\)/)
  const no = await post(sim, '/v1/audio/translations', { model: 'parakeet' }, toneWav(2))
  assert.is(no.status, 400)
  const junk = await post(sim, '/v1/audio/transcriptions', { model: 'whisper' }, Buffer.from('this is not audio at all'))
  assert.is(junk.status, 400)
  assert.match(((await junk.json()) as { error: { message: string } }).error.message, /^Invalid or unsupported audio file/)
})

test.run()
