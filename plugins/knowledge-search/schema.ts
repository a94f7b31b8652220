import type { FromSchema } from 'json-schema-to-ts'
import { fusionSchema, legsSchema } from '../../schemas/retrieval.schema.js'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    max_top_k: {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      default: 100,
      description: 'Largest top_k a request may ask for.',
    },
    neighbor_window: {
      type: 'integer',
      minimum: 0,
      maximum: 10,
      default: 1,
      description: 'Chunks on each side of a hit that `neighbor` retrieval adds.',
    },
    variants_model: {
      type: 'string',
      minLength: 1,
      description:
        "Chat model that writes the query variants of `advanced_rag` (through the `chat-internal` route). Default: the catalog's default model.",
    },
    variants: {
      type: 'integer',
      minimum: 1,
      maximum: 3,
      default: 3,
      description: 'Most query variants `advanced_rag` asks for and uses (the original query is always used as well).',
    },
    rerank_candidates: {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      default: 50,
      description:
        'With `rerank`, how many results are retrieved and handed to the reranker (at least top_k), before `top_n` cuts them.',
    },
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
    legs: legsSchema,
    fusion: fusionSchema,
    expr: { type: 'string' },
    tags: { type: 'array', maxItems: 1000, items: { type: 'string', minLength: 1, maxLength: 256 } },
    source_names: { type: 'array', maxItems: 1000, items: { type: 'string', minLength: 1, maxLength: 1024 } },
    token_budget: { type: 'integer', minimum: 1 },
    output_fields: {
      type: 'array',
      minItems: 1,
      maxItems: 64,
      uniqueItems: true,
      items: { type: 'string', minLength: 1, maxLength: 128 },
    },
    // The spec types rerank as a boolean and advanced_rag as the string "true"/"false"; each
    // accepts the other form too, since clients mix them.
    rerank: { oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['true', 'false'] }] },
    reranker_model: { type: 'string', minLength: 1, maxLength: 256 },
    reranker_provider: { type: 'string', minLength: 1, maxLength: 64 },
    top_n: { type: 'integer', minimum: 1 },
    advanced_rag: { oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['true', 'false'] }] },
  },
} as const
