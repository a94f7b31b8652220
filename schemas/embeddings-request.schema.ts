/**
 * The embeddings request (POST /embeddings), in OpenAI's shape. `input` is a string, an array of
 * strings, an array of token ids, or an array of token-id arrays; none may be empty, and a
 * request carries at most MAX_EMBEDDING_INPUTS of them (OpenAI's own bound). The `if`/`then`
 * pairs keep the first error ajv reports the one that says what is wrong ("must NOT have more
 * than 2048 items"), not an `anyOf` branch that was never meant. Whether the model takes
 * `dimensions` is the capabilities step's rule; `user` and other fields pass through as sent.
 */
import type { FromSchema } from 'json-schema-to-ts'

export const MAX_EMBEDDING_INPUTS = 2048

const tokenIds = { type: 'array', minItems: 1, items: { type: 'integer', minimum: 0 } } as const

export const embeddingsRequestSchema = {
  $id: 'sluice:embeddings-request',
  type: 'object',
  required: ['input'],
  properties: {
    model: { type: 'string' },
    input: {
      type: ['string', 'array'],
      if: { type: 'string' },
      then: { minLength: 1 },
      else: {
        minItems: 1,
        maxItems: MAX_EMBEDDING_INPUTS,
        items: {
          type: ['string', 'integer', 'array'],
          if: { type: 'string' },
          then: { minLength: 1 },
          else: { if: { type: 'integer' }, then: { minimum: 0 }, else: tokenIds },
        },
      },
    },
    encoding_format: { type: 'string', enum: ['float', 'base64'] },
    dimensions: { type: 'integer', minimum: 1 },
    user: { type: 'string' },
  },
} as const

export type EmbeddingsRequest = FromSchema<typeof embeddingsRequestSchema>
