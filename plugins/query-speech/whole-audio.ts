/**
 * The speech route's audio as one buffer. A streamed WAV leaves the gateway before its length
 * is known, so its header says "until the end" (0xFFFFFFFF) for both sizes; once the whole file
 * is here, inside a JSON answer, its true sizes are written in, as a file on disk would have them.
 */

export async function wholeAudio(data: Uint8Array | AsyncIterable<Uint8Array>): Promise<Buffer> {
  if (data instanceof Uint8Array) return Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  const parts: Buffer[] = []
  for await (const part of data) parts.push(Buffer.from(part))
  return Buffer.concat(parts)
}

/** The 44-byte header the gateway writes: RIFF size at 4, `data` at 36, data size at 40. */
export function withTrueWavSizes(file: Buffer): Buffer {
  if (file.length < 44 || file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 36, 40) !== 'data')
    return file
  file.writeUInt32LE(file.length - 8, 4)
  file.writeUInt32LE(file.length - 44, 40)
  return file
}
