import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['action'],
  properties: {
    action: {
      type: 'string',
      enum: ['list', 'get', 'put', 'delete', 'tokens', 'create-token', 'delete-token'],
      default: 'list',
      description:
        'What the route does: list projects, get one (`:id`), create or replace one (`:id`, body), delete one (`:id`), list its tokens (`:id`), make a token (`:id`, body `{kind}`), delete a token (`:id`, `:token`).',
    },
  },
} as const

export type AdminProjectsConfig = FromSchema<typeof configSchema>

/** The body of POST /admin/projects/:id/tokens. */
export const createTokenBody = {
  type: 'object',
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: {
      type: 'string',
      enum: ['developer', 'service'],
      description:
        '`developer` (search needs `collection`) or `service` (own parameters need `request_source: "override_params"`).',
    },
  },
} as const

export type CreateTokenBody = FromSchema<typeof createTokenBody>
