import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['action'],
  properties: {
    action: {
      type: 'string',
      enum: ['create', 'list', 'delete'],
      default: 'list',
      description:
        'What the route does: create a collection of `:project` (body `{name, embedding_model?}`), list them, or delete `:collection` with its documents.',
    },
  },
} as const

export type KnowledgeCollectionsConfig = FromSchema<typeof configSchema>

/** POST /projects/:project/collections */
export const createCollectionBody = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 128 },
    embedding_model: { type: 'string', minLength: 1, maxLength: 256 },
  },
} as const
