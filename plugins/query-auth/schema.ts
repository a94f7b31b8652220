import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    project_id_later: {
      type: 'boolean',
      default: false,
      description:
        "On a multipart route (`body: raw`) project_id arrives in the form, which is read after this step: its checks (required with a developer token, must name the token's project) are then the route's own step's (query-upload). An id in the query string is still checked here.",
    },
    query_param: {
      type: 'string',
      pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
      description:
        'A query parameter that may carry the token when no Authorization header is sent (`access_token` on the WebSocket, per spec 001 rule 1). Unset: the header only.',
    },
  },
} as const

export type QueryAuthConfig = FromSchema<typeof configSchema>
