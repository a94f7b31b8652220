import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    legacy: {
      type: 'string',
      enum: ['allow', 'not-found'],
      default: 'allow',
      description:
        'What legacy keys get on this route: served (`allow`), or 404 {"detail":"Not Found"} as from the older gateway that lacks the endpoint (`not-found`).',
    },
    query_param: {
      type: 'string',
      pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
      description:
        'A query parameter that may carry the key when no Authorization header is sent (e.g. `access_token` on WebSocket routes, whose browser clients cannot set headers). Unset: the header only.',
    },
    key_header: {
      type: 'string',
      pattern: '^[a-z][a-z0-9-]*$',
      description:
        "A request header that may carry the key as it is, when no Authorization header is sent (`x-api-key` on the Messages API, as Anthropic's clients send it). Unset: Authorization only.",
    },
  },
} as const

export type AuthConfig = FromSchema<typeof configSchema>
