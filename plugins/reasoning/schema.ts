import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    keep_effort_field: {
      type: 'boolean',
      default: false,
      description:
        "Send the client's `reasoning_effort` upstream as well as the mapped fields. Off: only what the model's level mapping declares reaches the server.",
    },
  },
} as const

export type ReasoningConfig = FromSchema<typeof configSchema>
