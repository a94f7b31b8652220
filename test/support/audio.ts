/**
 * Audio helpers for the speech and transcription tests: a WAV reader that accepts the streamed
 * header (sizes 0xFFFFFFFF), decoders for mp3, Ogg Opus and FLAC (the reference decoders of the
 * same Debian packages the gateway encodes with: lame, opus-tools, flac), test tones, and the
 * duration rule of the simulator's synthetic voice.
 */
import { wavHeader } from '../../sim/wav.js'
import { execFileSync, spawnSync } from 'node:child_process'

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
  if (buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') throw new Error('not a WAV file')
  let at = 12
  let fmt: { channels: number; sampleRate: number; bitsPerSample: number } | undefined
  while (at + 8 <= buf.length) {
    const id = buf.toString('ascii', at, at + 4)
    const size = buf.readUInt32LE(at + 4)
    if (id === 'fmt ') fmt = { channels: buf.readUInt16LE(at + 10), sampleRate: buf.readUInt32LE(at + 12), bitsPerSample: buf.readUInt16LE(at + 22) }
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

/** Decodes mp3, opus (Ogg) or flac to a WAV with the reference decoders, and parses it. */
export function decode(format: 'mp3' | 'opus' | 'flac', data: Buffer): DecodedAudio {
  const [cmd, args] =
    format === 'mp3'
      ? ['lame', ['--quiet', '--mp3input', '--decode', '-', '-']]
      : format === 'opus'
        ? // Opus decodes at 48 kHz by default; ask for the rate the file says it was made from.
          ['opusdec', ['--quiet', '--force-wav', '--rate', String(opusInputRate(data)), '-', '-']]
        : ['flac', ['--silent', '--decode', '--stdout', '-']]
  const wav = execFileSync(cmd, args as string[], { input: data, maxBuffer: 256 * 1024 * 1024, stdio: ['pipe', 'pipe', 'ignore'] })
  return parseWav(wav)
}

/** The input sample rate an Ogg Opus file records in its OpusHead (what it was encoded from). */
export function opusInputRate(data: Buffer): number {
  const head = data.indexOf('OpusHead')
  if (head === -1) throw new Error('not Ogg Opus')
  return data.readUInt32LE(head + 12)
}

/** The sample rate an MP3 file's first frame declares. */
export function mp3SampleRate(data: Buffer): number {
  const h = data.readUInt32BE(0)
  const version = (h >> 19) & 3
  const index = (h >> 10) & 3
  const table: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] }
  return table[version]![index]!
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

export function seconds(a: DecodedAudio): number {
  return a.pcm.length / (a.sampleRate * a.channels * (a.bitsPerSample / 8))
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
  for (let i = 0; i < n; i++) samples.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / sampleRate)), i * 2)
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
