import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    legacy: {
      type: 'string',
      enum: ['allow', 'not-found'],
      default: 'allow',
      description: 'What legacy keys get on this route: served (`allow`), or 404 {"detail":"Not Found"} as from the older gateway that lacks the endpoint (`not-found`).',
    },
  },
} as const

export type AuthConfig = FromSchema<typeof configSchema>
