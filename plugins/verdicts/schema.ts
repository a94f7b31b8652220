import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    route: {
      type: 'string',
      minLength: 1,
      default: 'chat-internal',
      description:
        'The in-process chat route each question is sent through (kernel.call), so it is queued fairly, mapped and recorded like a client request.',
    },
  },
} as const

export type VerdictsConfig = FromSchema<typeof configSchema>
