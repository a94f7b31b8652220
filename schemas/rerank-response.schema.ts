/**
 * The rerank reply (POST /v1/rerank) in the Cohere/Jina shape, whatever API the model's server
 * speaks (protocols/rerank/ranking.ts `rerankReply`): results best first, `document` only with
 * `return_documents: true`.
 */
export const rerankResponseSchema = {
  description: 'Documents by relevance, best first.',
  type: 'object',
  required: ['id', 'model', 'results', 'usage'],
  properties: {
    id: { type: 'string' },
    model: { type: 'string' },
    results: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'relevance_score'],
        properties: {
          index: { type: 'integer', minimum: 0 },
          relevance_score: { type: 'number' },
          document: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
        },
      },
    },
    usage: {
      type: 'object',
      required: ['total_tokens'],
      properties: { total_tokens: { type: 'integer', minimum: 0 } },
    },
  },
} as const
