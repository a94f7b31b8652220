/**
 * WAV for the simulator: the 44-byte header of 16-bit mono PCM (sizes 0xFFFFFFFF when the
 * length is not known yet, as a streaming server sends it) and a reader for uploaded files.
 */

export const unknownSize = 0xffffffff

export function wavHeader(dataBytes: number | undefined, sampleRate: number): Buffer {
  const h = Buffer.alloc(44)
  h.write('RIFF', 0, 'ascii')
  h.writeUInt32LE(dataBytes === undefined ? unknownSize : 36 + dataBytes, 4)
  h.write('WAVEfmt ', 8, 'ascii')
  h.writeUInt32LE(16, 16)
  h.writeUInt16LE(1, 20)
  h.writeUInt16LE(1, 22)
  h.writeUInt32LE(sampleRate, 24)
  h.writeUInt32LE(sampleRate * 2, 28)
  h.writeUInt16LE(2, 32)
  h.writeUInt16LE(16, 34)
  h.write('data', 36, 'ascii')
  h.writeUInt32LE(dataBytes === undefined ? unknownSize : dataBytes, 40)
  return h
}

export interface WavInfo {
  sampleRate: number
  channels: number
  bitsPerSample: number
  dataOffset: number
  /** Sample bytes actually present (a streamed header's size is not believed). */
  dataBytes: number
}

/** Reads a whole WAV file's layout; undefined when it is not one. */
export function readWav(file: Buffer): WavInfo | undefined {
  if (file.length < 12 || file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 12) !== 'WAVE')
    return undefined
  let offset = 12
  let fmt: Omit<WavInfo, 'dataOffset' | 'dataBytes'> | undefined
  while (offset + 8 <= file.length) {
    const id = file.toString('ascii', offset, offset + 4)
    const size = file.readUInt32LE(offset + 4)
    if (id === 'fmt ' && offset + 24 <= file.length) {
      fmt = {
        channels: file.readUInt16LE(offset + 10),
        sampleRate: file.readUInt32LE(offset + 12),
        bitsPerSample: file.readUInt16LE(offset + 22),
      }
    } else if (id === 'data') {
      if (!fmt) return undefined
      const present = file.length - (offset + 8)
      return {
        ...fmt,
        dataOffset: offset + 8,
        dataBytes: size === unknownSize || size === 0 || size > present ? present : size,
      }
    }
    offset += 8 + size + (size % 2)
  }
  return undefined
}
