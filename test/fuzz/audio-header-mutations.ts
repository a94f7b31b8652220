/**
 * Audio files whose headers say anything: WAV, FLAC, Ogg (Vorbis and Opus) and MP3 with random
 * field values (sample rates of 0, 1 or huge, impossible lengths, channels and bit depths),
 * truncated anywhere. They are uploaded in an otherwise valid form, so they reach whatever reads
 * the audio (the simulator's duration reader, inside the gateway's process).
 */
import type { FuzzRandom } from './random.js'

export interface AudioMutation {
  readonly mutation: string
  readonly file: Buffer
  readonly filename: string
}

const rates = [0, 1, 2, 7_999, 8_000, 16_000, 44_100, 48_000, 768_000, 768_001, 1_048_575, 0x7fffffff, 0xffffffff]

function rate(rng: FuzzRandom, max = 0xffffffff): number {
  return Math.min(max, rng.chance(0.8) ? rng.pick(rates) : rng.int(0, max))
}

function wav(rng: FuzzRandom): { what: string; file: Buffer } {
  const sampleRate = rate(rng)
  const channels = rng.pick([0, 1, 2, 8, 65_535])
  const bits = rng.pick([0, 1, 8, 16, 24, 32, 65_535])
  const dataBytes = rng.pick([0, 1, 3_200, 0xffffffff, rng.int(0, 0xffffffff)])
  const present = rng.pick([0, 1, 3_200, 64_000])
  const fmtSize = rng.pick([16, 18, 40, 0, 2, 0xffffffff])
  const h = Buffer.alloc(44)
  h.write('RIFF', 0, 'ascii')
  h.writeUInt32LE(rng.pick([36 + present, 0, 0xffffffff]), 4)
  h.write('WAVEfmt ', 8, 'ascii')
  h.writeUInt32LE(fmtSize, 16)
  h.writeUInt16LE(rng.pick([1, 3, 0xfffe, 0]), 20)
  h.writeUInt16LE(channels, 22)
  h.writeUInt32LE(sampleRate, 24)
  h.writeUInt32LE(Math.min(0xffffffff, (sampleRate * channels * bits) / 8) >>> 0, 28)
  h.writeUInt16LE(((channels * bits) / 8) & 0xffff, 32)
  h.writeUInt16LE(bits, 34)
  h.write(rng.chance(0.9) ? 'data' : 'LIST', 36, 'ascii')
  h.writeUInt32LE(dataBytes, 40)
  return {
    what: `WAV ${sampleRate} Hz, ${channels} ch, ${bits} bit, fmt ${fmtSize}, data says ${dataBytes} has ${present}`,
    file: Buffer.concat([h, Buffer.alloc(present)]),
  }
}

function flac(rng: FuzzRandom): { what: string; file: Buffer } {
  const sampleRate = rate(rng, 0xfffff)
  const total = rng.pick([0, 1, 2 ** 36 - 1, rng.int(0, 2 ** 36 - 1)])
  const channels = rng.int(0, 7)
  const bits = rng.int(0, 31)
  const f = Buffer.alloc(42 + rng.pick([0, 0, 100, 10_000]))
  f.write('fLaC', 0, 'latin1')
  f[4] = rng.pick([0x80, 0x00, 0x81, 0xff])
  f.writeUIntBE(rng.pick([34, 0, 0xffffff]), 5, 3)
  const b = 8
  f.writeUInt16BE(rng.pick([4096, 0, 16, 65_535]), b)
  f.writeUInt16BE(rng.pick([4096, 0, 65_535]), b + 2)
  f[b + 10] = (sampleRate >> 12) & 0xff
  f[b + 11] = (sampleRate >> 4) & 0xff
  f[b + 12] = ((sampleRate & 0x0f) << 4) | (channels << 1) | (bits >> 4)
  f[b + 13] = ((bits & 0x0f) << 4) | (Math.floor(total / 2 ** 32) & 0x0f)
  f.writeUInt32BE(total % 2 ** 32, b + 14)
  return {
    what: `FLAC ${sampleRate} Hz, ${channels + 1} ch, ${bits + 1} bit, ${total} samples, ${f.length} bytes`,
    file: f,
  }
}

function oggPage(granule: bigint, packet: Buffer, segments = 1): Buffer {
  const h = Buffer.alloc(27 + segments)
  h.write('OggS', 0, 'latin1')
  h.writeBigUInt64LE(BigInt.asUintN(64, granule), 6)
  h[26] = segments
  for (let i = 0; i < segments; i++) h[27 + i] = Math.min(255, packet.length)
  return Buffer.concat([h, packet])
}

const granules = [0n, 1n, -1n, 2n ** 62n, 2n ** 63n, 48_000n, 2n ** 40n]

function ogg(rng: FuzzRandom): { what: string; file: Buffer } {
  const opus = rng.chance(0.5)
  const granule = rng.pick(granules)
  let id: Buffer
  let what: string
  if (opus) {
    id = Buffer.alloc(19)
    id.write('OpusHead', 0, 'latin1')
    id[8] = 1
    id[9] = rng.pick([0, 1, 2, 255])
    id.writeUInt16LE(rng.pick([0, 312, 65_535]), 10)
    id.writeUInt32LE(rate(rng), 12)
    what = `Ogg Opus pre-skip ${id.readUInt16LE(10)}`
  } else {
    id = Buffer.alloc(30)
    id.write('\x01vorbis', 0, 'latin1')
    id[11] = rng.pick([0, 1, 2])
    id.writeUInt32LE(rate(rng), 12)
    what = `Ogg Vorbis ${id.readUInt32LE(12)} Hz`
  }
  // Sometimes the identification header is cut short, so its fields run past the file's end.
  if (rng.chance(0.2)) id = id.subarray(0, rng.int(opus ? 8 : 7, id.length - 1))
  const pages = [oggPage(0n, id, rng.pick([1, 0, 255]))]
  const extra = rng.pick([1, 1, 2, 50])
  for (let i = 0; i < extra; i++) pages.push(oggPage(granule, Buffer.from([0])))
  const file = Buffer.concat(pages)
  return { what: `${what}, ${id.length}-byte id header, last granule ${granule}, ${file.length} bytes`, file }
}

const mp3Bitrate = [0, 1, 9, 14, 15]

function mp3(rng: FuzzRandom): { what: string; file: Buffer } {
  const version = rng.pick([3, 2, 1, 0])
  const layer = rng.pick([1, 1, 2, 3, 0])
  const bitrate = rng.chance(0.5) ? rng.pick(mp3Bitrate) : rng.int(0, 15)
  const rateIndex = rng.int(0, 3)
  const header =
    (0xffe00000 |
      (version << 19) |
      (layer << 17) |
      (1 << 16) |
      (bitrate << 12) |
      (rateIndex << 10) |
      (rng.int(0, 1) << 9)) >>>
    0
  const frames = rng.size(1, 2_000)
  const frame = Buffer.alloc(rng.pick([4, 26, 417, 1_441]))
  frame.writeUInt32BE(header, 0)
  if (frame.length >= 48 && rng.chance(0.3)) {
    // A Xing header whose frame count is anything.
    frame.write('Xing', 36, 'latin1')
    frame.writeUInt32BE(0x0f, 40)
    frame.writeUInt32BE(rng.pick([0, 1, 0xffffffff]), 44)
  }
  const parts: Buffer[] = []
  if (rng.chance(0.3)) {
    const id3 = Buffer.alloc(10)
    id3.write('ID3', 0, 'latin1')
    const size = rng.pick([0, 10, 0x0fffffff])
    id3[6] = (size >> 21) & 0x7f
    id3[7] = (size >> 14) & 0x7f
    id3[8] = (size >> 7) & 0x7f
    id3[9] = size & 0x7f
    parts.push(id3)
  }
  for (let i = 0; i < frames; i++) parts.push(frame)
  return {
    what: `MP3 v${version} layer ${layer} bitrate ${bitrate} rate ${rateIndex}, ${frames} frames of ${frame.length}`,
    file: Buffer.concat(parts),
  }
}

const formats: Record<string, { make: (rng: FuzzRandom) => { what: string; file: Buffer }; ext: string }> = {
  wav: { make: wav, ext: 'wav' },
  flac: { make: flac, ext: 'flac' },
  ogg: { make: ogg, ext: 'ogg' },
  mp3: { make: mp3, ext: 'mp3' },
}

export function audioMutation(rng: FuzzRandom): AudioMutation {
  const format = rng.pick(Object.keys(formats))
  const { make, ext } = formats[format]!
  const { what, file } = make(rng)
  // Truncated anywhere, a third of the time: headers cut mid-field.
  if (rng.chance(0.33) && file.length > 1) {
    const cut = rng.int(0, Math.min(file.length - 1, 64))
    return { mutation: `${what}, truncated to ${cut} bytes`, file: file.subarray(0, cut), filename: `a.${ext}` }
  }
  return { mutation: what, file, filename: rng.chance(0.8) ? `a.${ext}` : 'a.bin' }
}
