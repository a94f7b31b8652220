import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['action'],
  properties: {
    action: {
      type: 'string',
      enum: ['list', 'get', 'put', 'delete'],
      default: 'list',
      description:
        'What the route does: list groups, get one (`:id`), create or replace one (`:id`, body), delete one (`:id`, only when no key is in it).',
    },
  },
} as const

export type AdminGroupsConfig = FromSchema<typeof configSchema>
