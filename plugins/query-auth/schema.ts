import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    query_param: {
      type: 'string',
      pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
      description: 'A query parameter that may carry the token when no Authorization header is sent (`access_token` on the WebSocket, per spec 001 rule 1). Unset: the header only.',
    },
  },
} as const

export type QueryAuthConfig = FromSchema<typeof configSchema>
