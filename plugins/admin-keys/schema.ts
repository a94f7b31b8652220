import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['action'],
  properties: {
    action: {
      type: 'string',
      enum: ['list', 'get', 'create', 'update', 'rotate', 'delete'],
      default: 'list',
      description:
        'What the route does: list keys, get one (`:id`), create one (body), update one (`:id`, body), rotate its secret (`:id`), delete it (`:id`).',
    },
  },
} as const

export type AdminKeysConfig = FromSchema<typeof configSchema>
