import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: {
      type: 'integer',
      minimum: 1,
      description: 'Largest max_tokens a request may ask for on this route.',
      default: 4096,
    },
    mode: {
      type: 'string',
      enum: ['clamp', 'refuse'],
      default: 'clamp',
      description:
        '`clamp` lowers a larger max_tokens to the limit (and fills it in when absent); `refuse` answers 400.',
    },
  },
} as const

export type MaxTokensConfig = FromSchema<typeof configSchema>
