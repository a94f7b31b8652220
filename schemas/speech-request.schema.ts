/**
 * The speech request (POST /audio/speech). Field shapes only: the rules that depend on the
 * model (its voices, whether it takes `speed`, how long `input` may be, which formats may be
 * streamed) are the speech plugin's, with messages of their own. Unknown fields are ignored.
 */
import type { FromSchema } from 'json-schema-to-ts'

export const speechFormats = ['mp3', 'opus', 'flac', 'wav', 'pcm'] as const

export const speechRequestSchema = {
  $id: 'sluice:speech-request',
  type: 'object',
  required: ['input'],
  properties: {
    model: { type: 'string' },
    input: { type: 'string', minLength: 1 },
    voice: {
      description: "A voice name, or the SDK's custom-voice object {id}.",
      anyOf: [{ type: 'string' }, { type: 'object', required: ['id'], properties: { id: { type: 'string' } } }],
    },
    response_format: { type: 'string', enum: speechFormats },
    stream_format: { type: 'string', enum: ['sse', 'audio'] },
    stream: { type: 'boolean' },
    speed: { type: 'number', minimum: 0.25, maximum: 4 },
    instructions: { type: 'string' },
    language: { type: 'string' },
  },
} as const

export type SpeechRequest = FromSchema<typeof speechRequestSchema>
export type SpeechFormat = (typeof speechFormats)[number]
