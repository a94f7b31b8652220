/**
 * Ogg Opus (RFC 7845) with libopus compiled to WebAssembly (npm `opusscript`), in an Ogg
 * stream this plugin writes itself (ogg-pages.ts; no maintained npm package writes Ogg Opus
 * from packets): an OpusHead page, an OpusTags page, then 20 ms packets at 32 kb/s, about a
 * second of them per page. Granule positions count decoded 48 kHz samples, the pre-skip (the
 * encoder's 6.5 ms look-ahead, which decoders drop) included; the last one trims the padding of
 * the final frame, so a decoder returns exactly the samples that were sent.
 *
 * Opus takes 8, 12, 16, 24 or 48 kHz; other rates are first resampled (linearly) up to the
 * next of those, and OpusHead keeps the original rate, as opusenc does.
 */
import { randomInt } from 'node:crypto'
import type OpusScript from 'opusscript'
import { OggStream } from './ogg-pages.js'
import { blockSamples, pause } from './pcm-blocks.js'

type OpusRate = 8000 | 12000 | 16000 | 24000 | 48000
const OPUS_RATES: readonly OpusRate[] = [8000, 12000, 16000, 24000, 48000]
/** libopus's look-ahead (2.5 ms + 4 ms of delay compensation), in 48 kHz samples: the pre-skip. */
const PRE_SKIP = 312
const FRAME_MS = 20
const BITRATE = 32000
const VENDOR = 'libopus (opusscript)'

let loading: Promise<typeof OpusScript> | undefined

/** Loads libopus once (its WebAssembly is instantiated with the first encoder). */
function loadOpus(): Promise<typeof OpusScript> {
  loading ??= import('opusscript')
    .then((m) => m.default)
    .catch((err: unknown) => {
      loading = undefined
      throw err
    })
  return loading
}

/** The Opus rate a `sampleRate` is encoded at: the same, or the next one up (48 kHz at most). */
export function opusRate(sampleRate: number): OpusRate {
  return OPUS_RATES.find((r) => r >= sampleRate) ?? 48000
}

/** Linear interpolation from `from` Hz to `to` Hz. */
export function resample(samples: Int16Array, from: number, to: number): Int16Array {
  if (from === to) return samples
  const out = new Int16Array(Math.round((samples.length * to) / from))
  const last = samples.length - 1
  for (let i = 0; i < out.length; i++) {
    const x = (i * from) / to
    const k = Math.min(Math.floor(x), last)
    const frac = x - k
    out[i] = Math.round(samples[k]! * (1 - frac) + samples[Math.min(k + 1, last)]! * frac)
  }
  return out
}

function opusHead(inputRate: number): Buffer {
  const b = Buffer.alloc(19)
  b.write('OpusHead', 0, 'latin1')
  b[8] = 1 // version
  b[9] = 1 // channels
  b.writeUInt16LE(PRE_SKIP, 10)
  b.writeUInt32LE(inputRate, 12)
  b.writeInt16LE(0, 16) // output gain
  b[18] = 0 // channel mapping family 0: mono or stereo, no table
  return b
}

function opusTags(): Buffer {
  const vendor = Buffer.from(VENDOR, 'utf8')
  const b = Buffer.alloc(8 + 4 + vendor.length + 4)
  b.write('OpusTags', 0, 'latin1')
  b.writeUInt32LE(vendor.length, 8)
  vendor.copy(b, 12)
  b.writeUInt32LE(0, 12 + vendor.length) // no user comments
  return b
}

export async function encodeOggOpus(input: Int16Array, sampleRate: number, signal: AbortSignal): Promise<Buffer> {
  const Opus = await loadOpus()
  const rate = opusRate(sampleRate)
  const samples = resample(input, sampleRate, rate)
  const frame = (rate * FRAME_MS) / 1000
  const toGranule = 48000 / rate
  // Enough frames to push the last real sample through the look-ahead; the rest is silence.
  const lookAhead = PRE_SKIP / toGranule
  const frames = Math.ceil((samples.length + lookAhead) / frame)
  const perBlock = blockSamples(rate, frame) / frame

  const ogg = new OggStream(randomInt(2 ** 32))
  ogg.header(opusHead(sampleRate))
  ogg.header(opusTags())
  const encoder = new Opus(rate, 1, Opus.Application.AUDIO)
  try {
    encoder.setBitrate(BITRATE)
    const pcm = new Int16Array(frame)
    for (let f = 0; f < frames; f++) {
      if (f > 0 && f % perBlock === 0) await pause(signal)
      pcm.fill(0)
      pcm.set(samples.subarray(f * frame, (f + 1) * frame))
      ogg.packet(
        encoder.encode(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength), frame),
        (f + 1) * frame * toGranule,
      )
    }
  } finally {
    encoder.delete()
  }
  signal.throwIfAborted()
  return ogg.end(PRE_SKIP + samples.length * toGranule)
}
