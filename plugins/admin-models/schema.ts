import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {},
} as const

export type AdminModelsConfig = FromSchema<typeof configSchema>
