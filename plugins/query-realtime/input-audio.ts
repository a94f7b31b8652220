/**
 * The realtime request's audio_file as the transcription route reads it: base64 (or a data
 * URL) decoded strictly, its format named by `model_params.input_audio_format` (else WAV).
 * Raw pcm16 has no header a transcription server could read, so it is wrapped in one: 24 kHz
 * mono 16-bit, OpenAI Realtime's pcm16.
 */
import { GatewayError } from '../../kernel/contract/index.js'
import { decodeBase64Payload } from '../../protocols/http/base64-payload.js'
import { wavHeader } from '../../protocols/audio/wav-header.js'

export const PCM16_RATE = 24000

export interface InputAudio {
  readonly base64: string
  readonly filename: string
  readonly contentType?: string
}

const bad = (message: string) => new GatewayError(400, message, { code: 'invalid_request' })

export function inputAudio(audioFile: string | undefined, format: string | undefined, maxBytes: number): InputAudio {
  if (audioFile === undefined) throw bad('audio_file is required with endpoint realtime')
  const audio = decodeBase64Payload(audioFile)
  if (!audio) throw bad('audio_file must be base64 (or a base64 data URL)')
  if (audio.data.length > maxBytes)
    throw new GatewayError(413, `audio_file is larger than ${maxBytes} bytes`, { code: 'body_too_large' })
  if (format === 'pcm16') {
    if (audio.data.length % 2 !== 0)
      throw bad('audio_file in pcm16 must hold whole 16-bit samples (an even number of bytes)')
    return {
      base64: Buffer.concat([wavHeader(audio.data.length, PCM16_RATE), audio.data]).toString('base64'),
      filename: 'audio.wav',
    }
  }
  return {
    base64: audio.base64,
    filename: `audio.${format ?? 'wav'}`,
    ...(audio.contentType ? { contentType: audio.contentType } : {}),
  }
}
