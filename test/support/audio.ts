/**
 * Audio helpers for the speech and transcription tests: a WAV reader that accepts the streamed
 * header (sizes 0xFFFFFFFF), decoders for mp3, Ogg Opus and FLAC (mpg123 and libopus built for
 * WebAssembly, and libFLAC's own decoder with its MD5 check, all from npm), test tones, and the
 * duration rule of the simulator's synthetic voice.
 */
import { wavHeader } from '../../sim/wav.js'
import { spawnSync } from 'node:child_process'
import { MPEGDecoder } from 'mpg123-decoder'
import { OggOpusDecoder } from 'ogg-opus-decoder'

export interface DecodedAudio {
  sampleRate: number
  channels: number
  bitsPerSample: number
  /** 16-bit little-endian samples. */
  pcm: Buffer
  /** The declared RIFF and data sizes, as sent. */
  riffSize: number
  dataSize: number
}

/** Parses a WAV, believing the bytes present over a streamed header's 0xFFFFFFFF sizes. */
export function parseWav(buf: Buffer): DecodedAudio {
  if (buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE')
    throw new Error('not a WAV file')
  let at = 12
  let fmt: { channels: number; sampleRate: number; bitsPerSample: number } | undefined
  while (at + 8 <= buf.length) {
    const id = buf.toString('ascii', at, at + 4)
    const size = buf.readUInt32LE(at + 4)
    if (id === 'fmt ')
      fmt = {
        channels: buf.readUInt16LE(at + 10),
        sampleRate: buf.readUInt32LE(at + 12),
        bitsPerSample: buf.readUInt16LE(at + 22),
      }
    if (id === 'data') {
      if (!fmt) throw new Error('data before fmt')
      const present = buf.length - (at + 8)
      const len = size === 0xffffffff || size === 0 || size > present ? present : size
      return { ...fmt, pcm: buf.subarray(at + 8, at + 8 + len), riffSize: buf.readUInt32LE(4), dataSize: size }
    }
    at += 8 + size + (size % 2)
  }
  throw new Error('no data chunk')
}

/** What a decoder made of a file: its rate, its channels, and the first channel as 16-bit PCM. */
export interface Decoded {
  sampleRate: number
  /** Channels the decoder returned (mpg123 returns a mono mp3 as two equal channels). */
  channels: number
  /** The first channel, 16-bit little-endian. */
  pcm: Buffer
  /** Whether every channel holds the same samples. */
  channelsEqual: boolean
  errors: number
}

function toPcm16(samples: Float32Array): Buffer {
  const out = Buffer.alloc(samples.length * 2)
  for (let i = 0; i < samples.length; i++)
    out.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(samples[i]! * 32768))), i * 2)
  return out
}

/**
 * Decodes mp3, Ogg Opus or flac in process. Opus always decodes at 48 kHz (RFC 7845: the rate
 * the file was made from is only recorded, see opusInputRate).
 */
export async function decode(format: 'mp3' | 'opus' | 'flac', data: Buffer): Promise<Decoded> {
  if (format === 'flac') return decodeFlac(data)
  const bytes = new Uint8Array(data)
  const decoder = format === 'mp3' ? new MPEGDecoder() : new OggOpusDecoder()
  await decoder.ready
  try {
    const r = decoder instanceof MPEGDecoder ? decoder.decode(bytes) : await decoder.decodeFile(bytes)
    const [first, ...rest] = r.channelData
    const samples = first?.subarray(0, r.samplesDecoded) ?? new Float32Array(0)
    return {
      sampleRate: r.sampleRate,
      channels: r.channelData.length,
      pcm: toPcm16(samples),
      channelsEqual: rest.every((c) => c.subarray(0, r.samplesDecoded).every((v, i) => v === samples[i])),
      errors: r.errors.length,
    }
  } finally {
    decoder.free()
  }
}

/**
 * FLAC through libFLAC's stream decoder with MD5 checking: an error, or audio whose MD5 is not
 * STREAMINFO's, counts in `errors`. (@wasm-audio-decoders/flac drops a last frame of a few bytes,
 * such as the 13-byte frame that a block of silence at the end becomes.)
 */
async function decodeFlac(data: Buffer): Promise<Decoded> {
  const Flac = (await import('libflacjs/dist/libflac.js')).default
  if (!Flac.isReady()) await new Promise<void>((resolve) => Flac.on('ready', () => resolve()))
  const decoder = Flac.create_libflac_decoder(true)
  let at = 0
  let sampleRate = 0
  let channels = 0
  let errors = 0
  const blocks: Buffer[] = []
  Flac.init_decoder_stream(
    decoder,
    (wanted) => {
      const chunk = data.subarray(at, at + wanted)
      at += chunk.length
      return { buffer: new Uint8Array(chunk), readDataLength: chunk.length, error: false }
    },
    (perChannel, frame) => {
      if (frame.bitsPerSample !== 16) errors++
      blocks.push(Buffer.from(perChannel[0]!)) // 16-bit little-endian samples of channel 1
    },
    () => void errors++,
    (info) => {
      sampleRate = info?.sampleRate ?? 0
      channels = info?.channels ?? 0
    },
  )
  try {
    if (!Flac.FLAC__stream_decoder_process_until_end_of_stream(decoder)) errors++
  } finally {
    if (!Flac.FLAC__stream_decoder_finish(decoder)) errors++ // false: the MD5 did not match
    Flac.FLAC__stream_decoder_delete(decoder)
  }
  return { sampleRate, channels, pcm: Buffer.concat(blocks), channelsEqual: true, errors }
}

/** The input sample rate an Ogg Opus file records in its OpusHead (what it was encoded from). */
export function opusInputRate(data: Buffer): number {
  const head = data.indexOf('OpusHead')
  if (head === -1) throw new Error('not Ogg Opus')
  return data.readUInt32LE(head + 12)
}

/** The sample rate and channel count an MP3 file's first frame declares. */
export function mp3Header(data: Buffer): { sampleRate: number; channels: number } {
  const h = data.readUInt32BE(0)
  if ((h & 0xffe00000) >>> 0 !== 0xffe00000) throw new Error('not an MP3 frame')
  const version = (h >> 19) & 3
  const index = (h >> 10) & 3
  const table: Record<number, number[]> = {
    3: [44100, 48000, 32000],
    2: [22050, 24000, 16000],
    0: [11025, 12000, 8000],
  }
  // Channel mode 3 is single channel.
  return { sampleRate: table[version]![index]!, channels: ((h >> 6) & 3) === 3 ? 1 : 2 }
}

/** FLAC STREAMINFO: sample rate, channels and the total sample count it declares. */
export function flacInfo(data: Buffer): { sampleRate: number; channels: number; totalSamples: number } {
  const b = 8
  return {
    sampleRate: (data[b + 10]! << 12) | (data[b + 11]! << 4) | (data[b + 12]! >> 4),
    channels: ((data[b + 12]! >> 1) & 7) + 1,
    totalSamples: (data[b + 13]! & 0x0f) * 2 ** 32 + data.readUInt32BE(b + 14),
  }
}

/** How long decoded audio lasts: a WAV's (any channels, any width) or a decoder's first channel. */
export function seconds(a: DecodedAudio | Decoded): number {
  return 'bitsPerSample' in a
    ? a.pcm.length / (a.sampleRate * a.channels * (a.bitsPerSample / 8))
    : a.pcm.length / 2 / a.sampleRate
}

/** Root mean square of 16-bit samples, 0 to 1: above 0.01 is not silence. */
export function rms(pcm: Buffer): number {
  let sum = 0
  const n = Math.floor(pcm.length / 2)
  for (let i = 0; i < n; i++) {
    const v = pcm.readInt16LE(i * 2) / 32768
    sum += v * v
  }
  return n === 0 ? 0 : Math.sqrt(sum / n)
}

/**
 * How alike two 16-bit signals are, 0 to 1: the normalized correlation of `a` with `b` shifted
 * by the lag of 0 to `maxLag` samples (a lossy codec's delay) that fits best on a half-second
 * stretch, over their whole common length.
 */
export function likeness(a: Buffer, b: Buffer, maxLag = 0): number {
  const x = new Int16Array(a.length >> 1).map((_, i) => a.readInt16LE(i * 2))
  const y = new Int16Array(b.length >> 1).map((_, i) => b.readInt16LE(i * 2))
  const correlation = (lag: number, from: number, to: number) => {
    let xy = 0
    let xx = 0
    let yy = 0
    for (let i = from; i < Math.min(to, x.length, y.length - lag); i++) {
      xy += x[i]! * y[i + lag]!
      xx += x[i]! * x[i]!
      yy += y[i + lag]! * y[i + lag]!
    }
    return xx > 0 && yy > 0 ? xy / Math.sqrt(xx * yy) : 0
  }
  let best = 0
  let bestScore = -Infinity
  for (let lag = 0; lag <= maxLag; lag++) {
    const score = correlation(lag, 0, 12000)
    if (score > bestScore) [best, bestScore] = [lag, score]
  }
  return correlation(best, 0, x.length)
}

/** Every `factor`-th sample of 16-bit PCM (48 kHz decoded Opus against 24 kHz PCM: 2). */
export function decimate(pcm: Buffer, factor: number): Buffer {
  const out = Buffer.alloc(Math.floor(pcm.length / 2 / factor) * 2)
  for (let i = 0; i < out.length / 2; i++) out.writeInt16LE(pcm.readInt16LE(i * factor * 2), i * 2)
  return out
}

/** A WAV of `dataBytes` bytes of silence at `sampleRate`, 16-bit mono: a long recording made fast. */
export function silentWav(dataBytes: number, sampleRate = 16000): Buffer {
  const buf = Buffer.alloc(44 + dataBytes)
  toneWav(0, sampleRate).copy(buf, 0, 0, 40)
  buf.writeUInt32LE(36 + dataBytes, 4)
  buf.writeUInt32LE(dataBytes, 40)
  return buf
}

/** A WAV of a 440 Hz tone: `seconds` long at `sampleRate`, 16-bit mono. */
export function toneWav(secondsLong: number, sampleRate = 16000): Buffer {
  const n = Math.round(secondsLong * sampleRate)
  const samples = Buffer.alloc(n * 2)
  for (let i = 0; i < n; i++)
    samples.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / sampleRate)), i * 2)
  return Buffer.concat([wavHeader(samples.length, sampleRate), samples])
}

/**
 * How long the simulator's synthetic voice speaks a text (docs/simulator.md): `msPerChar` per
 * character, three times that for punctuation, 400 ms per expression tag; in samples at 24 kHz.
 */
export function syntheticSamples(text: string, msPerChar: number): number {
  const perChar = Math.round((24000 * msPerChar) / 1000)
  const tags = /<(laugh|chuckle|sigh|cough|sniffle|groan|yawn|gasp|giggle)>/gi
  let samples = 0
  for (const _ of text.matchAll(tags)) samples += 9600
  for (const ch of text.replace(tags, '')) samples += /[.,!?;:…]/.test(ch) ? perChar * 3 : perChar
  return samples
}

/** Whether a program is on PATH (optional engines are tested only when present). */
export function hasProgram(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0
}
