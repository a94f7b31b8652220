/**
 * The embeddings reply (POST /v1/embeddings) in OpenAI's shape: one vector per input, as floats
 * or, with `encoding_format: base64`, as the base64 of little-endian float32. `usage` is the
 * server's (vLLM adds `completion_tokens: 0`).
 */
export const embeddingsResponseSchema = {
  description: "Vectors in OpenAI's shape, one per input, in input order.",
  type: 'object',
  required: ['object', 'data', 'model'],
  properties: {
    object: { const: 'list' },
    model: { type: 'string' },
    data: {
      type: 'array',
      items: {
        type: 'object',
        required: ['object', 'index', 'embedding'],
        properties: {
          object: { const: 'embedding' },
          index: { type: 'integer', minimum: 0 },
          embedding: {
            description: 'Floats, or the base64 of little-endian float32 with `encoding_format: base64`.',
            anyOf: [{ type: 'array', items: { type: 'number' } }, { type: 'string' }],
          },
        },
      },
    },
    usage: {
      type: 'object',
      required: ['prompt_tokens', 'total_tokens'],
      properties: {
        prompt_tokens: { type: 'integer', minimum: 0 },
        total_tokens: { type: 'integer', minimum: 0 },
        completion_tokens: { type: 'integer', minimum: 0 },
      },
    },
  },
} as const
