/**
 * The verdicts reply (POST /v1/verdicts; plugins/verdicts, verdict.ts): one verdict per question
 * id, shaped by the question's type, and the usage of every model call summed.
 */
const probability = { type: 'number', minimum: 0, maximum: 1 } as const
const confidence = { type: 'number', minimum: 0, maximum: 1 } as const

const verdict = {
  oneOf: [
    {
      type: 'object',
      required: ['type', 'value', 'probabilities', 'confidence'],
      properties: {
        type: { const: 'boolean' },
        value: { type: 'boolean' },
        probabilities: {
          type: 'object',
          required: ['false', 'true'],
          properties: { false: probability, true: probability },
        },
        confidence,
      },
    },
    {
      type: 'object',
      required: ['type', 'value', 'probabilities', 'confidence'],
      properties: {
        type: { const: 'choice' },
        value: { type: 'string' },
        probabilities: { type: 'object', additionalProperties: probability },
        confidence,
      },
    },
    {
      type: 'object',
      required: ['type', 'value', 'probabilities', 'confidence', 'expected_value'],
      properties: {
        type: { const: 'score' },
        value: { type: 'integer', minimum: 1 },
        probabilities: { type: 'array', items: probability },
        confidence,
        expected_value: { type: 'number', minimum: 1 },
      },
    },
  ],
} as const

export const verdictsResponseSchema = {
  description: 'A verdict per question id; `model` is the catalog id of the model that answered.',
  type: 'object',
  required: ['model', 'verdicts', 'usage'],
  properties: {
    model: { type: 'string' },
    verdicts: { type: 'object', additionalProperties: verdict },
    usage: {
      type: 'object',
      required: ['prompt_tokens', 'completion_tokens', 'total_tokens', 'prompt_tokens_details'],
      properties: {
        prompt_tokens: { type: 'integer', minimum: 0 },
        completion_tokens: { type: 'integer', minimum: 0 },
        total_tokens: { type: 'integer', minimum: 0 },
        prompt_tokens_details: {
          type: 'object',
          required: ['cached_tokens'],
          properties: { cached_tokens: { type: 'integer', minimum: 0 } },
        },
      },
    },
  },
} as const
