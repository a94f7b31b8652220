import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    max_top_k: { type: 'integer', minimum: 1, maximum: 1000, default: 100, description: 'Largest top_k a request may ask for.' },
    neighbor_window: { type: 'integer', minimum: 0, maximum: 10, default: 1, description: 'Chunks on each side of a hit that `neighbor` retrieval adds.' },
  },
} as const

export type KnowledgeSearchConfig = FromSchema<typeof configSchema>

/** POST …/collections/:collection/search */
export const searchBody = {
  type: 'object',
  additionalProperties: false,
  required: ['query'],
  properties: {
    query: { type: 'string', minLength: 1, maxLength: 8192 },
    top_k: { type: 'integer', minimum: 1, default: 5 },
    retrieval_type: { type: 'string', enum: ['chunk', 'document', 'neighbor'], default: 'chunk' },
    legs: { type: 'string', enum: ['hybrid', 'lexical', 'vector'], default: 'hybrid' },
    expr: { type: 'string' },
    tags: { type: 'array', maxItems: 1000, items: { type: 'string', minLength: 1, maxLength: 256 } },
    source_names: { type: 'array', maxItems: 1000, items: { type: 'string', minLength: 1, maxLength: 1024 } },
    token_budget: { type: 'integer', minimum: 1 },
  },
} as const
