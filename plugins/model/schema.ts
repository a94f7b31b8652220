import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    types: {
      type: 'array',
      items: {
        type: 'string',
        enum: ['chat', 'embedding', 'image', 'audio_speech', 'audio_transcription', 'video', 'rerank'],
      },
      default: ['chat'],
      description: 'Model types this route serves; other models get 400.',
    },
    endpoint: {
      type: 'string',
      enum: ['chat', 'completions', 'other'],
      default: 'chat',
      description: '`completions` admits only models with supports_completions.',
    },
    models_path: {
      type: 'string',
      default: '/v1/models',
      description: 'Path of the model catalog, for the `link` header that points at a replacement.',
    },
    default_model: {
      type: 'boolean',
      default: false,
      description: 'Use the deployment default model when the body names none (instead of 400 "model is required").',
    },
  },
} as const

export type ModelPluginConfig = FromSchema<typeof configSchema>
