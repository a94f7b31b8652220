import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { encodePcm, type EncodedFormat } from '../../../plugins/speech/pcm-encoders.js'
import { oggCrc } from '../../../plugins/speech/ogg-pages.js'
import {
  decimate,
  decode,
  flacInfo,
  likeness,
  mp3Header,
  opusInputRate,
  rms,
  seconds,
  toneWav,
} from '../../support/audio.js'

const test = suite('plugin speech: mp3, Ogg Opus and flac encoded in process')

/** A 440 Hz tone as raw 16-bit PCM. */
const tone = (secondsLong: number, sampleRate: number) => toneWav(secondsLong, sampleRate).subarray(44)
const live = () => new AbortController().signal

for (const rate of [24000, 22050]) {
  test(`${rate} Hz: each format decodes to the tone it was given, as long as it was`, async () => {
    const pcm = tone(1.5, rate)
    const flac = await encodePcm('flac', pcm, rate, live())
    assert.equal(flacInfo(flac), { sampleRate: rate, channels: 1, totalSamples: 1.5 * rate })
    assert.ok((await decode('flac', flac)).pcm.equals(pcm), 'flac is lossless')

    const mp3 = await encodePcm('mp3', pcm, rate, live())
    assert.equal(mp3Header(mp3), { sampleRate: rate, channels: 1 })
    const fromMp3 = await decode('mp3', mp3)
    assert.ok(seconds(fromMp3) >= 1.5 && seconds(fromMp3) < 1.6, `mp3: ${seconds(fromMp3)} s`)
    assert.ok(likeness(pcm, fromMp3.pcm, 2400) > 0.95, 'mp3 sounds like the tone')

    // Opus has no 22.05 kHz: that is resampled up to 24 kHz; OpusHead keeps the rate sent.
    const opus = await encodePcm('opus', pcm, rate, live())
    assert.is(opusInputRate(opus), rate)
    const fromOpus = await decode('opus', opus)
    assert.is(fromOpus.sampleRate, 48000)
    assert.is(fromOpus.pcm.length / 2, 1.5 * 48000, 'pre-skip and end trimming leave the exact length')
    assert.ok(likeness(tone(1.5, 24000), decimate(fromOpus.pcm, 2), 2) > 0.95, 'opus sounds like the tone')
  })
}

test('no audio at all still makes a valid file in each format, of (next to) no length', async () => {
  for (const format of ['mp3', 'opus', 'flac'] as const) {
    const decoded = await decode(format, await encodePcm(format, Buffer.alloc(0), 24000, live()))
    assert.is(decoded.errors, 0, format)
    assert.ok(decoded.pcm.length === 0 || seconds(decoded) < 0.1, `${format}: ${seconds(decoded)} s`)
    assert.ok(rms(decoded.pcm) < 0.01, format)
  }
})

test('a long encoding leaves the event loop free: a timer keeps firing all along', async () => {
  const pcm = tone(60, 24000)
  for (const format of ['opus', 'mp3', 'flac'] as const) {
    // Counted, not timed: in one go the timer could not fire at all until the end; in blocks it
    // fires between them. A busy machine delays ticks but does not remove them.
    let ticks = 0
    const timer = setInterval(() => void ticks++, 5)
    let done = false
    const encoding = encodePcm(format, pcm, 24000, live()).finally(() => (done = true))
    // The first tick must come while the encoding is still running.
    const tickedBeforeEnd = await new Promise<boolean>((resolve) => {
      const check = setInterval(() => {
        if (ticks > 0 || done) {
          clearInterval(check)
          resolve(ticks > 0 && !done)
        }
      }, 1)
    })
    await encoding
    clearInterval(timer)
    assert.ok(tickedBeforeEnd, `${format}: the loop was held until the encoding ended`)
    assert.ok(ticks >= 2, `${format}: the timer fired ${ticks} times during the encoding`)
  }
})

test('an abort stops the encoding between blocks, with the abort reason', async () => {
  const pcm = Buffer.concat(Array.from({ length: 600 }, () => tone(1, 24000))) // ten minutes: seconds of work for any of the three
  for (const format of ['opus', 'mp3', 'flac'] as EncodedFormat[]) {
    const gone = new AbortController()
    const reason = new Error('client went away')
    setTimeout(() => gone.abort(reason), 50)
    const started = performance.now()
    const err = await encodePcm(format, pcm, 24000, gone.signal).then(
      () => undefined,
      (e: unknown) => e,
    )
    assert.is(err, reason, format)
    assert.ok(
      performance.now() - started < 1000,
      `${format}: stopped after ${Math.round(performance.now() - started)} ms`,
    )
  }
})

test('Ogg CRC: the one libogg writes (checked on pages of an Ogg FLAC stream made by libFLAC with libogg)', async () => {
  const Flac = (await import('libflacjs/dist/libflac.js')).default
  if (!Flac.isReady()) await new Promise<void>((resolve) => Flac.on('ready', () => resolve()))
  const encoder = Flac.create_libflac_encoder(24000, 1, 16, 5, 24000, false, 0)
  const out: Buffer[] = []
  assert.is(
    Flac.init_encoder_ogg_stream(encoder, (data, bytes) => void out.push(Buffer.from(data.subarray(0, bytes)))),
    0,
  )
  const samples = new Int32Array(24000).map((_, i) => Math.round(8000 * Math.sin(i / 5)))
  assert.ok(Flac.FLAC__stream_encoder_process_interleaved(encoder, samples, samples.length))
  assert.ok(Flac.FLAC__stream_encoder_finish(encoder))
  Flac.FLAC__stream_encoder_delete(encoder)
  const ogg = Buffer.concat(out)
  let pages = 0
  for (let at = ogg.indexOf('OggS'); at !== -1; at = ogg.indexOf('OggS', at + 1)) {
    const segments = ogg[at + 26]!
    const length = 27 + segments + ogg.subarray(at + 27, at + 27 + segments).reduce((a, b) => a + b, 0)
    const page = Buffer.from(ogg.subarray(at, at + length))
    const stored = page.readUInt32LE(22)
    page.writeUInt32LE(0, 22)
    assert.is(oggCrc(page), stored, `page ${pages}`)
    pages++
    at += length - 1
  }
  assert.ok(pages >= 2, `${pages} pages`)
})

test.run()
