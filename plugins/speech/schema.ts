import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    encoders: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description: 'Programs that encode PCM into the formats the server does not make itself (Debian packages lame, opus-tools, flac).',
      properties: {
        mp3: { type: 'string', default: 'lame', description: 'LAME, the mp3 encoder.' },
        opus: { type: 'string', default: 'opusenc', description: 'opusenc of opus-tools (Ogg Opus).' },
        flac: { type: 'string', default: 'flac', description: 'The reference FLAC encoder.' },
      },
    },
    sse_chunk_bytes: {
      type: 'integer',
      minimum: 2,
      default: 16384,
      description: 'Largest audio delta of a server-sent event, in bytes before base64 (16384 bytes ≈ 0.34 s at 24 kHz).',
    },
  },
} as const

export type SpeechConfig = FromSchema<typeof configSchema>
