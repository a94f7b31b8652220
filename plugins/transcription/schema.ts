import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    task: {
      type: 'string',
      enum: ['transcribe', 'translate'],
      default: 'transcribe',
      description:
        '`transcribe`: POST /audio/transcriptions, text in the spoken language. `translate`: POST /audio/translations, English text (models with audio.translation only).',
    },
  },
} as const

export type TranscriptionConfig = FromSchema<typeof configSchema>
