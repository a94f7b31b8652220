import type { FromSchema } from 'json-schema-to-ts'

/**
 * No options: where the model's server is comes from config/models.yaml, and the bounds are the
 * request schema's (schemas/images-request) and the server's own.
 */
export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {},
} as const

export type ImageGenerationConfig = FromSchema<typeof configSchema>
