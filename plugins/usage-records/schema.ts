import type { FromSchema } from 'json-schema-to-ts'

/** No options: every figure of a record comes from `ex.usage`. */
export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {},
} as const

export type UsageRecordsConfig = FromSchema<typeof configSchema>
