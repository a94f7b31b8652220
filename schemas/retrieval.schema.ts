/**
 * How a knowledge search runs its legs and merges them: `legs` and `fusion`, taken by the
 * knowledge search route, the Query service's `search_params` and server.yaml
 * `knowledge.retrieval` (the deployment's and each collection's settings). Every field is
 * optional: an unset one comes from the next layer (request, collection, deployment, the
 * product's default). docs/api-reference.md, "Fusion"; docs/operator-guide.md.
 */
import type { FromSchema } from 'json-schema-to-ts'

export const legsSchema = {
  type: 'string',
  enum: ['hybrid', 'lexical', 'vector'],
  description: '`hybrid` (both legs fused), `lexical` (full-text only) or `vector` (embeddings only).',
} as const

const weight = { type: 'number', minimum: 0, maximum: 100 } as const

export const fusionSchema = {
  type: 'object',
  additionalProperties: false,
  description: "How a hybrid search merges its two legs' ranked lists.",
  properties: {
    method: {
      type: 'string',
      enum: ['rrf', 'convex'],
      description:
        "`convex`: each leg's scores scaled to [0, 1] over its list and summed with the weights; `rrf`: reciprocal rank fusion, Σ weight / (k + rank).",
    },
    k: { type: 'integer', minimum: 1, maximum: 1000, description: 'The rank constant of `rrf` (ignored by `convex`).' },
    weights: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      description: "Each leg's weight (0 to 100); only their ratio matters. Both 0 is refused.",
      properties: { lexical: weight, vector: weight },
    },
    adaptive: {
      type: 'boolean',
      description:
        "Scale the vector weight by the share of the first half of the vector leg's list (its first 2 × top_k hits) that the lexical leg also found.",
    },
  },
} as const

export type LegsSetting = FromSchema<typeof legsSchema>
export type FusionSetting = FromSchema<typeof fusionSchema>

/** server.yaml `knowledge.retrieval`: the deployment's settings, and each collection's. */
export const retrievalSettingsSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description:
    "How searches of the knowledge base run their legs and fuse them, for every collection, and per collection in `collections`. A request's `legs` and `fusion` override these, field by field.",
  properties: {
    legs: legsSchema,
    fusion: fusionSchema,
    collections: {
      type: 'object',
      description:
        'Settings of one collection, keyed by `project/collection` or by the collection name alone (any project); the project-qualified key wins.',
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: { legs: legsSchema, fusion: fusionSchema },
      },
    },
  },
} as const

export type RetrievalSettingsConfig = FromSchema<typeof retrievalSettingsSchema>
