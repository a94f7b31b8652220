/**
 * The fields of POST /v1/audio/speech as a speech server (vllm-omni, Orpheus-FastAPI) reads
 * them, each with a 400 that names the field.
 */
import { SimError } from './api-error.js'
import { optionalString, requiredString, type JsonObject } from './body-fields.js'
import type { SimModelConfig } from './schema.js'

export interface SpeechRequest {
  input: string
  voice: string
  format: 'pcm' | 'wav'
  speed: number
  language: string | undefined
}

export function readSpeechRequest(body: JsonObject, model: SimModelConfig): SpeechRequest {
  const audio = model.audio
  const input = requiredString(body, 'input')
  if (input.trim() === '') throw new SimError(400, 'input: String should have at least 1 character', 'input')
  const requestedVoice = optionalString(body, 'voice') ?? audio.voices[0]!
  const voice = audio.voices.find((v) => v.toLowerCase() === requestedVoice.toLowerCase())
  if (!voice)
    throw new SimError(400, `Invalid voice '${requestedVoice}'. Supported voices: ${audio.voices.join(', ')}`, 'voice')
  const format = optionalString(body, 'response_format') ?? 'wav'
  if (!(audio.speech_formats as string[]).includes(format))
    throw new SimError(
      400,
      `Unsupported response_format '${format}'. Supported: ${audio.speech_formats.join(', ')}`,
      'response_format',
    )
  const rawSpeed = body.speed
  if (rawSpeed !== undefined && rawSpeed !== null && typeof rawSpeed !== 'number')
    throw new SimError(400, 'speed: Input should be a valid number', 'speed')
  const speed = typeof rawSpeed === 'number' ? rawSpeed : 1
  if (speed < 0.25 || speed > 4) throw new SimError(400, 'speed: Input should be between 0.25 and 4.0', 'speed')
  const language = optionalString(body, 'language')
  if (language !== undefined && audio.languages.length > 0) {
    const known = ['auto', ...audio.languages].map((l) => l.toLowerCase())
    if (!known.includes(language.toLowerCase()))
      throw new SimError(
        400,
        `Unsupported language '${language}'. Supported: Auto, ${audio.languages.join(', ')}`,
        'language',
      )
  }
  return { input, voice, format: format as 'pcm' | 'wav', speed, language }
}
