/**
 * Encoding 16-bit mono PCM into mp3, opus (in Ogg) and flac in the gateway's own process, with
 * the formats' reference libraries built for JavaScript from npm (why these: docs/decisions.md):
 * LAME (mp3-encoder.ts), libopus (opus-encoder.ts) and libFLAC (flac-encoder.ts). Nothing to
 * install besides `npm ci`, no child process. Each library loads once, on first use; the audio
 * is fed in half-second blocks with the event loop free between them, and an aborted request
 * stops between blocks.
 */
import { GatewayError } from '../../kernel/contract/index.js'
import { encodeFlac } from './flac-encoder.js'
import { encodeMp3 } from './mp3-encoder.js'
import { encodeOggOpus } from './opus-encoder.js'
import { pcmSamples } from './pcm-blocks.js'

export type EncodedFormat = 'mp3' | 'opus' | 'flac'

export const contentTypes: Record<EncodedFormat | 'wav' | 'pcm', string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/ogg; codecs=opus',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
}

const encoders: Record<
  EncodedFormat,
  (samples: Int16Array, sampleRate: number, signal: AbortSignal) => Promise<Buffer>
> = {
  mp3: encodeMp3,
  opus: encodeOggOpus,
  flac: encodeFlac,
}

/** Encodes a whole PCM buffer; rejects with the abort reason when `signal` aborts (client gone, time limit). */
export async function encodePcm(
  format: EncodedFormat,
  pcm: Buffer,
  sampleRate: number,
  signal: AbortSignal,
): Promise<Buffer> {
  signal.throwIfAborted()
  try {
    return await encoders[format](pcmSamples(pcm), sampleRate, signal)
  } catch (err) {
    if (signal.aborted) throw signal.reason
    throw new GatewayError(500, 'internal error', { code: 'internal', cause: err })
  }
}
