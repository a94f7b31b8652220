import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    sse_chunk_bytes: {
      type: 'integer',
      minimum: 2,
      default: 16384,
      description:
        'Largest audio delta of a server-sent event, in bytes before base64 (16384 bytes ≈ 0.34 s at 24 kHz).',
    },
  },
} as const

export type SpeechConfig = FromSchema<typeof configSchema>
