import type { FromSchema } from 'json-schema-to-ts'

/** The same limits as the `query` plugin's `search` options, so a search finds what a query would. */
export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    max_top_k: {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      default: 100,
      description: 'Largest `top_k` a search may ask for (400 beyond).',
    },
    default_top_k: {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      default: 5,
      description: '`top_k` when neither the request nor the project gives one.',
    },
    neighbor_window: {
      type: 'integer',
      minimum: 0,
      maximum: 10,
      default: 1,
      description: '`neighbor` retrieval: chunks on each side of a hit.',
    },
    variants: {
      type: 'integer',
      minimum: 1,
      maximum: 3,
      default: 3,
      description: '`advanced_rag`: query variants written by a chat model.',
    },
    variants_model: {
      type: 'string',
      minLength: 1,
      description: "Writes `advanced_rag`'s query variants; default: the catalog's default model.",
    },
    rerank_candidates: {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      default: 50,
      description: 'Results retrieved for the reranker before `top_n` cuts them.',
    },
  },
} as const

export type QuerySearchConfig = FromSchema<typeof configSchema>
