import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    default_max_tokens: {
      type: 'integer',
      minimum: 1,
      default: 4096,
      description:
        'Reply tokens reserved, and sent upstream as max_tokens, when a request on a budget sets none: the ceiling that bounds what it can cost.',
    },
    min_tokens: {
      type: 'integer',
      minimum: 1,
      default: 16,
      description:
        'Fewest reply tokens worth serving. A budget that affords fewer than asked but at least this many lowers max_tokens to what it affords; below it the request is refused.',
    },
  },
} as const

export type BudgetConfig = FromSchema<typeof configSchema>
