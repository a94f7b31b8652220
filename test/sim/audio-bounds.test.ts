import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { checkSampleRate, maxAudioSeconds, plausibleSeconds } from '../../sim/audio-bounds.js'
import { audioInfo } from '../../sim/audio-duration.js'
import { maxSegments, transcriptSegments } from '../../sim/transcript-render.js'
import { SimError } from '../../sim/api-error.js'
import { wavHeader } from '../../sim/wav.js'

const test = suite('sim: audio headers are believed only within bounds')

test('sample rates from 8 kHz to 768 kHz; outside → 400', () => {
  for (const ok of [8000, 16000, 44100, 768000]) checkSampleRate(ok)
  for (const bad of [0, 1, 7999, 768001, NaN]) assert.throws(() => checkSampleRate(bad), /sample rate/)
})

test("a length the bytes cannot hold at the format's lowest bitrate, or over 48 hours → 400", () => {
  assert.is(plausibleSeconds('wav', 10, 160_044), 10)
  // FLAC of pure silence in its largest frames: about 11 bit/s, still believed.
  assert.is(plausibleSeconds('flac', 600, 1000), 600)
  assert.throws(() => plausibleSeconds('flac', 1e6, 1000), /more than its 1000 bytes can hold/)
  assert.throws(() => plausibleSeconds('mp3', 100, 1000), /more than its 1000 bytes can hold/)
  // 8 kbit/s MPEG-2 at 22.05 kHz: 26-byte frames of 26.1 ms.
  assert.is(plausibleSeconds('mp3', (1000 * 576) / 22050, 26_000), (1000 * 576) / 22050)
  assert.throws(
    () => plausibleSeconds('ogg', maxAudioSeconds + 1, 64 * 1024 * 1024),
    /too long: 172801 s; the maximum is 172800 s/,
  )
  assert.throws(() => plausibleSeconds('ogg', Infinity, 100), /no valid length/)
})

test('the transcript has at most maxSegments segments, longer ones covering the whole when needed', () => {
  const normal = transcriptSegments(12.5, 5, 'transcribe', undefined)
  assert.equal(
    normal.map((s) => [s.start, s.end]),
    [
      [0, 5],
      [5, 10],
      [10, 12.5],
    ],
  )
  const tiny = transcriptSegments(maxAudioSeconds, 0.001, 'transcribe', undefined)
  assert.is(tiny.length, maxSegments)
  assert.is(tiny.at(-1)!.end, maxAudioSeconds)
})

test('an MP3 at the lowest bitrate passes: 8 kbit/s MPEG-2 frames at 22.05 kHz, walked', () => {
  const header = (0xffe00000 | (2 << 19) | (1 << 17) | (1 << 16) | (1 << 12)) >>> 0
  const frame = Buffer.alloc(26)
  frame.writeUInt32BE(header, 0)
  const info = audioInfo(Buffer.concat(Array.from({ length: 1000 }, () => frame)))
  assert.is(info.format, 'mp3')
  assert.ok(Math.abs(info.seconds - (1000 * 576) / 22050) < 1e-9, String(info.seconds))
})

/** An Ogg page: the header, one segment, the packet. */
function oggPage(granule: bigint, packet: Buffer): Buffer {
  const h = Buffer.alloc(28)
  h.write('OggS', 0, 'latin1')
  h.writeBigUInt64LE(granule, 6)
  h[26] = 1
  h[27] = packet.length
  return Buffer.concat([h, packet])
}

test('a header cut anywhere is a 400, never a RangeError (the fuzzer found Ogg headers read past the end: a 500)', () => {
  const opusHead = Buffer.alloc(19)
  opusHead.write('OpusHead', 0, 'latin1')
  const vorbisId = Buffer.alloc(30)
  vorbisId.write('\x01vorbis', 0, 'latin1')
  vorbisId.writeUInt32LE(16000, 12)
  const flac = Buffer.alloc(42)
  flac.write('fLaC', 0, 'latin1')
  const files: [string, Buffer][] = [
    ['ogg opus', oggPage(0n, opusHead)],
    ['ogg vorbis', oggPage(0n, vorbisId)],
    ['wav', Buffer.concat([wavHeader(3200, 16000), Buffer.alloc(3200)])],
    ['flac', flac],
  ]
  for (const [what, file] of files) {
    for (let cut = 0; cut <= file.length; cut++) {
      try {
        audioInfo(file.subarray(0, cut))
      } catch (err) {
        assert.ok(err instanceof SimError && err.status === 400, `${what} cut to ${cut} bytes: ${String(err)}`)
      }
    }
  }
})

test.run()
