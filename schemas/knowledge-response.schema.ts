/**
 * The knowledge base API's answers (pipelines/knowledge.yaml; plugins/knowledge-*): collections,
 * documents, their deletions, and a search's results, whose chunks are shaped by
 * `output_fields` (domains/query/knowledge/search/output-fields.ts).
 */
import type { FromSchema } from 'json-schema-to-ts'

const isoTime = { type: 'string', format: 'date-time' } as const
const count = { type: 'integer', minimum: 0 } as const

export const collectionViewSchema = {
  description: 'A collection as shown.',
  type: 'object',
  additionalProperties: false,
  required: ['object', 'name', 'embedding_model', 'dimension', 'documents', 'chunks', 'created_at'],
  properties: {
    object: { const: 'knowledge.collection' },
    name: { type: 'string' },
    embedding_model: { type: ['string', 'null'], description: "null: the deployment's default model." },
    dimension: { type: 'integer', minimum: 1 },
    documents: count,
    chunks: count,
    created_at: isoTime,
  },
} as const

export const collectionDeletedSchema = {
  description: 'The collection deleted, with its documents, chunks and vectors.',
  type: 'object',
  additionalProperties: false,
  required: ['object', 'name', 'deleted'],
  properties: { object: { const: 'knowledge.collection.deleted' }, name: { type: 'string' }, deleted: { const: true } },
} as const

export const documentViewSchema = {
  description: 'A document as shown.',
  type: 'object',
  additionalProperties: false,
  required: ['object', 'source_name', 'url', 'tags', 'metadata', 'chunks', 'updated_at'],
  properties: {
    object: { const: 'knowledge.document' },
    source_name: { type: 'string' },
    url: { type: ['string', 'null'] },
    tags: { type: 'array', items: { type: 'string' } },
    metadata: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean', 'null'] } },
    chunks: count,
    updated_at: isoTime,
  },
} as const

export const documentDeletedSchema = {
  description: 'The document deleted, with its chunks.',
  type: 'object',
  additionalProperties: false,
  required: ['object', 'source_name', 'deleted'],
  properties: {
    object: { const: 'knowledge.document.deleted' },
    source_name: { type: 'string' },
    deleted: { const: true },
  },
} as const

const score = { type: 'number' } as const

/**
 * A chunk as a search returns it: everything by default, or the `output_fields` asked for (and
 * custom metadata keys as top-level fields); always `index`, and `score` and `rerank_score` where
 * they apply.
 */
export const searchChunkSchema = {
  type: 'object',
  required: ['index'],
  properties: {
    index: { type: 'integer', minimum: 0 },
    source_name: { type: 'string' },
    url: { type: ['string', 'null'] },
    tags: { type: 'array', items: { type: 'string' } },
    metadata: { type: 'object' },
    heading_path: { type: 'array', items: { type: 'string' } },
    page_number: { type: ['integer', 'null'] },
    content: { type: 'string' },
    score,
    rerank_score: score,
  },
} as const

/** A search result: a chunk (`retrieval_type: chunk`), or a document or a neighbourhood with its chunks. */
export const searchResultSchema = {
  anyOf: [
    searchChunkSchema,
    {
      type: 'object',
      required: ['source_name', 'score', 'chunks'],
      properties: {
        source_name: { type: 'string' },
        score,
        rerank_score: score,
        truncated: { type: 'boolean', description: 'document: chunks were left out for `token_budget`.' },
        hits: { type: 'array', items: { type: 'integer' }, description: 'neighbor: the indexes that matched.' },
        chunks: { type: 'array', items: searchChunkSchema },
      },
    },
  ],
} as const

export const knowledgeSearchSchema = {
  description:
    'Results best first; `fusion` with `hybrid`, `query_variants` with `advanced_rag`, `reranker_model` with `rerank`.',
  type: 'object',
  additionalProperties: false,
  required: ['object', 'retrieval_type', 'legs', 'data'],
  properties: {
    object: { const: 'list' },
    retrieval_type: { enum: ['chunk', 'document', 'neighbor'] },
    legs: { enum: ['hybrid', 'lexical', 'vector'] },
    fusion: {
      description: 'With `hybrid`: the fusion used, every field resolved (request, collection, deployment, default).',
      type: 'object',
      additionalProperties: false,
      required: ['method', 'k', 'weights', 'adaptive'],
      properties: {
        method: { enum: ['rrf', 'convex'] },
        k: { type: 'integer' },
        weights: {
          type: 'object',
          additionalProperties: false,
          required: ['lexical', 'vector'],
          properties: { lexical: { type: 'number' }, vector: { type: 'number' } },
        },
        adaptive: { type: 'boolean' },
      },
    },
    query_variants: { type: 'array', items: { type: 'string' } },
    reranker_model: { type: 'string' },
    data: { type: 'array', items: searchResultSchema },
  },
} as const

export type CollectionView = FromSchema<typeof collectionViewSchema>
export type DocumentView = FromSchema<typeof documentViewSchema>
