import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    endpoint: {
      type: 'string',
      enum: ['chat', 'completions', 'embeddings'],
      default: 'chat',
      description: 'Which OpenAI-compatible endpoint of the model server to call.',
    },
  },
} as const

export type BackendPluginConfig = FromSchema<typeof configSchema>
