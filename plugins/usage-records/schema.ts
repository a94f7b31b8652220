import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    tokens_per_message: { type: 'integer', minimum: 0, default: 8, description: 'Prompt tokens counted per message when a reply ends without a usage report (a cut or abandoned stream) and the prompt must be estimated.' },
    tokens_per_image: { type: 'integer', minimum: 0, default: 1024, description: 'Prompt tokens counted per image part in that estimate.' },
  },
} as const

export type UsageRecordsConfig = FromSchema<typeof configSchema>
