import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    fallback: {
      type: 'string',
      enum: ['estimate', 'error'],
      default: 'estimate',
      description:
        "When the model's server cannot count (no /tokenize, an error, unreachable): `estimate` answers with the gateway's own prompt estimate (the one budgets reserve with, an upper bound); `error` passes the failure on.",
    },
  },
} as const

export type TokenCountConfig = FromSchema<typeof configSchema>
