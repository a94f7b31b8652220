/**
 * The rerank request (POST /rerank), in the Cohere/Jina shape that vLLM, Infinity and most
 * clients send: a query, the documents to order (strings, or `{text}` objects as Cohere v1 and
 * Jina allow), how many of the best to keep, and whether to echo their text. The bounds are
 * checked at the door, before anything is reserved: at most MAX_RERANK_DOCUMENTS documents
 * (Cohere's own limit), each and the query non-empty; the route's body limit bounds the total
 * size (pipelines/gateway.yaml).
 */
import type { FromSchema } from 'json-schema-to-ts'

export const MAX_RERANK_DOCUMENTS = 1000

const text = { type: 'string', minLength: 1 } as const

export const rerankRequestSchema = {
  $id: 'sluice:rerank-request',
  type: 'object',
  required: ['query', 'documents'],
  properties: {
    model: { type: 'string' },
    query: text,
    documents: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_RERANK_DOCUMENTS,
      items: {
        type: ['string', 'object'],
        if: { type: 'string' },
        then: { minLength: 1 },
        else: { required: ['text'], properties: { text } },
      },
    },
    top_n: { type: 'integer', minimum: 1 },
    return_documents: { type: 'boolean' },
  },
} as const

export type RerankRequest = FromSchema<typeof rerankRequestSchema>
