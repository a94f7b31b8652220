/**
 * Raw PCM out of what a speech server sends: passed through when it sends PCM, with the WAV
 * header stripped when it only speaks WAV. Chunks are kept whole samples (an even number of
 * bytes), because SSE clients decode each delta on its own.
 */
import { GatewayError } from '../../kernel/contract/index.js'
import { readWavHeader } from '../../protocols/audio/wav-header.js'

function badAudio(reason: string): GatewayError {
  return new GatewayError(502, `upstream sent unusable audio: ${reason}`, { code: 'upstream_failed' })
}

/** Strips a WAV header and checks that the samples are 16-bit mono at the expected rate. */
export async function* pcmFromWav(source: AsyncIterable<Buffer>, sampleRate: number): AsyncGenerator<Buffer> {
  let head: Buffer = Buffer.alloc(0)
  let started = false
  for await (const chunk of source) {
    if (started) {
      yield chunk
      continue
    }
    head = head.length === 0 ? chunk : Buffer.concat([head, chunk])
    let format
    try {
      format = readWavHeader(head)
    } catch (err) {
      throw badAudio((err as Error).message)
    }
    if (!format) continue
    const pcm = format.audioFormat === 1 || format.audioFormat === 0xfffe
    if (!pcm || format.bitsPerSample !== 16 || format.channels !== 1 || format.sampleRate !== sampleRate)
      throw badAudio(
        `WAV of ${format.channels} channel(s), ${format.bitsPerSample}-bit, ${format.sampleRate} Hz; expected 16-bit mono PCM at ${sampleRate} Hz`,
      )
    started = true
    const rest = head.subarray(format.dataOffset)
    if (rest.length > 0) yield rest
  }
  if (!started) throw badAudio('the WAV header never ended')
}

/**
 * Re-cuts a byte stream into chunks of whole 16-bit samples, at most `maxBytes` each (a
 * whole-file reply would otherwise become one delta of megabytes).
 */
export async function* wholeSamples(
  source: AsyncIterable<Buffer>,
  maxBytes = Number.POSITIVE_INFINITY,
): AsyncGenerator<Buffer> {
  let carry: Buffer | undefined
  const limit = Math.max(2, maxBytes - (maxBytes % 2))
  for await (const chunk of source) {
    let buf = carry ? Buffer.concat([carry, chunk]) : chunk
    carry = undefined
    if (buf.length % 2 === 1) {
      carry = buf.subarray(buf.length - 1)
      buf = buf.subarray(0, buf.length - 1)
    }
    for (let at = 0; at < buf.length; at += limit) yield buf.subarray(at, Math.min(buf.length, at + limit))
  }
  // A dangling half sample is dropped: it cannot be played.
}

/** Reads a whole stream into one buffer. */
export async function collect(source: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = []
  for await (const chunk of source) parts.push(chunk)
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts)
}
