import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    default_max_tokens: {
      type: 'integer',
      minimum: 1,
      default: 4096,
      description: 'Reply tokens reserved, and sent upstream as max_tokens, when a request on a budget sets none: the ceiling that bounds what it can cost.',
    },
    min_tokens: {
      type: 'integer',
      minimum: 1,
      default: 16,
      description: 'Fewest reply tokens worth serving. A budget that affords fewer than asked but at least this many lowers max_tokens to what it affords; below it the request is refused.',
    },
    tokens_per_message: { type: 'integer', minimum: 0, default: 8, description: "Prompt tokens counted for each message's chat-template framing." },
    tokens_per_image: { type: 'integer', minimum: 0, default: 1024, description: 'Prompt tokens counted for each image part (models differ; set it to your largest).' },
  },
} as const

export type BudgetConfig = FromSchema<typeof configSchema>
