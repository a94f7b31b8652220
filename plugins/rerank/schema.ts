import type { FromSchema } from 'json-schema-to-ts'

/**
 * No options: what to send where is the model's (`rerank_api`, `rerank_path` in
 * config/models.yaml), and the bounds are the request schema's and the route's body limit.
 */
export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {},
} as const

export type RerankConfig = FromSchema<typeof configSchema>
