/**
 * How long an uploaded recording is, from its own bytes: WAV from its header and data size,
 * FLAC from STREAMINFO's sample count, Ogg (Opus or Vorbis) from the last page's granule
 * position, MP3 by walking its frames. A transcription server's segments and durations come
 * from this, so they follow the audio actually sent; a header no recording could have is refused
 * (audio-bounds.ts).
 */
import { SimError } from './api-error.js'
import { checkSampleRate, mostSecondsIn, plausibleSeconds } from './audio-bounds.js'
import { readWav } from './wav.js'

export interface AudioInfo {
  format: 'wav' | 'flac' | 'ogg' | 'mp3'
  seconds: number
}

export function audioInfo(file: Buffer): AudioInfo {
  const info = readLength(file)
  return { format: info.format, seconds: plausibleSeconds(info.format, info.seconds, file.length) }
}

function readLength(file: Buffer): AudioInfo {
  const wav = readWav(file)
  if (wav) {
    const bytesPerSecond = (wav.sampleRate * wav.channels * wav.bitsPerSample) / 8
    if (bytesPerSecond <= 0) throw invalid()
    checkSampleRate(wav.sampleRate)
    return { format: 'wav', seconds: wav.dataBytes / bytesPerSecond }
  }
  const magic = file.toString('latin1', 0, 4)
  if (magic === 'fLaC') return { format: 'flac', seconds: flacSeconds(file) }
  if (magic === 'OggS') return { format: 'ogg', seconds: oggSeconds(file) }
  const mp3 = mp3Seconds(file)
  if (mp3 !== undefined) return { format: 'mp3', seconds: mp3 }
  throw invalid()
}

function invalid(): SimError {
  return new SimError(400, 'Invalid or unsupported audio file: expected wav, mp3, flac or ogg/opus.', 'file')
}

function flacSeconds(file: Buffer): number {
  // STREAMINFO is the first metadata block: 4-byte block header, then the fields.
  if (file.length < 42) throw invalid()
  const b = 8
  const sampleRate = (file[b + 10]! << 12) | (file[b + 11]! << 4) | (file[b + 12]! >> 4)
  const channels = ((file[b + 12]! >> 1) & 0x07) + 1
  const bits = (((file[b + 12]! & 0x01) << 4) | (file[b + 13]! >> 4)) + 1
  const total = (file[b + 13]! & 0x0f) * 2 ** 32 + file.readUInt32BE(b + 14)
  if (sampleRate === 0) throw invalid()
  checkSampleRate(sampleRate)
  if (total > 0) return total / sampleRate
  // Unknown length (encoded to a pipe): estimate from the size at FLAC's usual ~60% ratio.
  return file.length / ((sampleRate * channels * bits) / 8) / 0.6
}

function oggSeconds(file: Buffer): number {
  // The first page holds the codec's identification header.
  const opus = file.indexOf('OpusHead')
  let rate: number
  let preSkip = 0
  // An identification header cut short (its fields past the file's end) is no header.
  if (opus !== -1 && opus < 200) {
    if (opus + 12 > file.length) throw invalid()
    rate = 48000 // Opus granule positions always count 48 kHz samples.
    preSkip = file.readUInt16LE(opus + 10)
  } else {
    const vorbis = file.indexOf('\x01vorbis', 0, 'latin1')
    if (vorbis === -1 || vorbis > 200 || vorbis + 16 > file.length) throw invalid()
    rate = file.readUInt32LE(vorbis + 12)
    checkSampleRate(rate)
  }
  const last = file.lastIndexOf('OggS')
  if (last === -1 || last + 14 > file.length) throw invalid()
  const granule = Number(file.readBigUInt64LE(last + 6))
  return Math.max(0, granule - preSkip) / rate
}

const mp3Bitrates = {
  v1l3: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  v2l3: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
}
const mp3Rates = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] } as Record<
  number,
  number[]
>

/** Walks MPEG layer III frames; undefined when the file does not start like an MP3. */
function mp3Seconds(file: Buffer): number | undefined {
  let at = 0
  if (file.toString('latin1', 0, 3) === 'ID3' && file.length > 10) {
    at = 10 + ((file[6]! & 0x7f) << 21) + ((file[7]! & 0x7f) << 14) + ((file[8]! & 0x7f) << 7) + (file[9]! & 0x7f)
  }
  let seconds = 0
  let frames = 0
  while (at + 4 <= file.length) {
    const h = file.readUInt32BE(at)
    if ((h & 0xffe00000) >>> 0 !== 0xffe00000) {
      if (frames === 0) return undefined
      break
    }
    const version = (h >> 19) & 3 // 3 = MPEG-1, 2 = MPEG-2, 0 = MPEG-2.5
    const layer = (h >> 17) & 3 // 1 = layer III
    const bitrateIndex = (h >> 12) & 15
    const rateIndex = (h >> 10) & 3
    const padding = (h >> 9) & 1
    const rate = mp3Rates[version]?.[rateIndex]
    if (layer !== 1 || !rate || bitrateIndex === 0 || bitrateIndex === 15) {
      if (frames === 0) return undefined
      break
    }
    const kbps = (version === 3 ? mp3Bitrates.v1l3 : mp3Bitrates.v2l3)[bitrateIndex]!
    const samples = version === 3 ? 1152 : 576
    const length = Math.floor(((samples / 8) * kbps * 1000) / rate) + padding
    if (frames === 0) {
      const exact = xingSeconds(file.subarray(at, at + length), samples, rate)
      // A frame count the bytes cannot hold (a truncated file, or a lie) is ignored: the frames are walked.
      if (exact !== undefined && exact <= mostSecondsIn('mp3', file.length)) return exact
    }
    seconds += samples / rate
    frames++
    at += length
  }
  return seconds
}

/**
 * The exact length from a Xing/Info header in the first frame (LAME writes one): its frame count
 * (not counting itself), less the encoder delay and padding of the LAME extension.
 */
function xingSeconds(frame: Buffer, samplesPerFrame: number, rate: number): number | undefined {
  let tag = frame.indexOf('Xing')
  if (tag === -1) tag = frame.indexOf('Info')
  if (tag === -1 || tag + 12 > frame.length) return undefined
  const flags = frame.readUInt32BE(tag + 4)
  if ((flags & 1) === 0) return undefined
  const frames = frame.readUInt32BE(tag + 8)
  let samples = frames * samplesPerFrame
  // After frames come the optional byte count, TOC and quality; then LAME's extension.
  const lame = tag + 8 + 4 + (flags & 2 ? 4 : 0) + (flags & 4 ? 100 : 0) + (flags & 8 ? 4 : 0)
  if (frame.toString('latin1', lame, lame + 4) === 'LAME' && lame + 24 <= frame.length) {
    const delay = (frame[lame + 21]! << 4) | (frame[lame + 22]! >> 4)
    const pad = ((frame[lame + 22]! & 0x0f) << 8) | frame[lame + 23]!
    samples -= delay + pad
  }
  return Math.max(0, samples) / rate
}
