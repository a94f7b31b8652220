import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    action: {
      type: 'string',
      enum: ['list', 'retrieve'],
      default: 'list',
      description: '`list` answers GET /models; `retrieve` answers GET /models/{id} (path parameter `id`).',
    },
    owned_by: { type: 'string', default: 'sluice', description: '`owned_by` of every entry.' },
  },
} as const

export type ModelCatalogConfig = FromSchema<typeof configSchema>
