/**
 * WAV headers: the 44-byte header the gateway writes in front of 16-bit PCM (speech replies,
 * and pcm16 audio of the Query service's realtime messages before transcription), and a reader
 * for the header a server sends (servers that only speak WAV, such as Orpheus-FastAPI).
 *
 * A streamed WAV does not know its length when its header leaves, so, as OpenAI does, both the
 * RIFF size and the data size are 0xFFFFFFFF ("until the end of the stream"); a whole file gets
 * its true sizes.
 */

/** Both sizes of a streamed WAV: unknown, read until the end. */
export const UNKNOWN_SIZE = 0xffffffff

export function wavHeader(dataBytes: number | undefined, sampleRate: number, channels = 1, bitsPerSample = 16): Buffer {
  const h = Buffer.alloc(44)
  const blockAlign = (channels * bitsPerSample) / 8
  h.write('RIFF', 0, 'ascii')
  h.writeUInt32LE(dataBytes === undefined ? UNKNOWN_SIZE : 36 + dataBytes, 4)
  h.write('WAVE', 8, 'ascii')
  h.write('fmt ', 12, 'ascii')
  h.writeUInt32LE(16, 16) // fmt chunk size
  h.writeUInt16LE(1, 20) // PCM
  h.writeUInt16LE(channels, 22)
  h.writeUInt32LE(sampleRate, 24)
  h.writeUInt32LE(sampleRate * blockAlign, 28)
  h.writeUInt16LE(blockAlign, 32)
  h.writeUInt16LE(bitsPerSample, 34)
  h.write('data', 36, 'ascii')
  h.writeUInt32LE(dataBytes === undefined ? UNKNOWN_SIZE : dataBytes, 40)
  return h
}

export interface WavFormat {
  /** 1 = integer PCM. */
  readonly audioFormat: number
  readonly channels: number
  readonly sampleRate: number
  readonly bitsPerSample: number
  /** Offset of the first sample byte. */
  readonly dataOffset: number
  /** Declared data size; UNKNOWN_SIZE (or 0, from some encoders) when streamed. */
  readonly dataBytes: number
}

/**
 * Reads a WAV header from the start of `buf`. Returns undefined while `buf` is too short to
 * hold the whole header (the caller waits for more bytes); throws when it is not WAV.
 */
export function readWavHeader(buf: Buffer): WavFormat | undefined {
  if (buf.length < 12) return undefined
  if (buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE')
    throw new Error('not a RIFF/WAVE stream')
  let offset = 12
  let fmt: Omit<WavFormat, 'dataOffset' | 'dataBytes'> | undefined
  // Chunks in order: fmt, perhaps LIST or fact, then data.
  for (;;) {
    if (buf.length < offset + 8) return undefined
    const id = buf.toString('ascii', offset, offset + 4)
    const size = buf.readUInt32LE(offset + 4)
    if (id === 'data') {
      if (!fmt) throw new Error('WAV data chunk before its fmt chunk')
      return { ...fmt, dataOffset: offset + 8, dataBytes: size }
    }
    if (buf.length < offset + 8 + size) return undefined
    if (id === 'fmt ') {
      fmt = {
        audioFormat: buf.readUInt16LE(offset + 8),
        channels: buf.readUInt16LE(offset + 10),
        sampleRate: buf.readUInt32LE(offset + 12),
        bitsPerSample: buf.readUInt16LE(offset + 22),
      }
    }
    offset += 8 + size + (size % 2) // chunks are padded to an even length
  }
}
