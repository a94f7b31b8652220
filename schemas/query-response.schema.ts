/**
 * The Query service's answers (spec 001, "Query response"; protocols/query/response.ts): one
 * envelope for every body type, `{response: {response, metadata}, file, query_id}`, `file`
 * naming the handler and `response.response` the body type's answer; and the chat upload's
 * receipt. `usage_metric` as protocols/query/usage-metric.ts makes it.
 */
const count = { type: 'integer', minimum: 0 } as const
const cost = { type: 'number', minimum: 0 } as const
const inputParts = ['user_query', 'incontext_text', 'system_prompt', 'knowledge_base', 'conversation_history'] as const

function breakdown<T extends object>(value: T) {
  return {
    type: 'object',
    required: inputParts,
    properties: {
      user_query: value,
      incontext_text: value,
      system_prompt: value,
      knowledge_base: value,
      conversation_history: value,
    },
  } as const
}

export const usageMetricSchema = {
  description: 'Tokens and indicative costs of the answer, the input split by where its tokens came from.',
  type: 'object',
  required: [
    'input_token_count',
    'output_token_count',
    'total_token_count',
    'input_token_cost',
    'output_token_cost',
    'total_token_cost',
    'input_token_details',
    'output_token_details',
    'input_token_cost_details',
    'output_token_cost_details',
  ],
  properties: {
    input_token_count: count,
    output_token_count: count,
    total_token_count: count,
    input_token_cost: cost,
    output_token_cost: cost,
    total_token_cost: cost,
    input_token_details: breakdown(count),
    output_token_details: { type: 'object', required: ['output_response'], properties: { output_response: count } },
    input_token_cost_details: breakdown(cost),
    output_token_cost_details: { type: 'object', required: ['output_response'], properties: { output_response: cost } },
  },
} as const

/** The envelope of body type `file`, whose `response.response` is `answer`. */
export function queryEnvelope<Answer extends object>(file: string, answer: Answer, description: string) {
  return {
    description,
    type: 'object',
    required: ['response', 'file', 'query_id'],
    properties: {
      response: {
        type: 'object',
        required: ['response', 'metadata'],
        properties: {
          response: answer,
          metadata: {
            type: 'object',
            required: ['sources', 'query_id', 'usage_metric'],
            properties: {
              sources: {
                type: 'object',
                additionalProperties: { type: 'array' },
                description: 'By source name, its results in rank order; `{}` without search.',
              },
              query_id: { type: 'string' },
              usage_metric: usageMetricSchema,
              model: { type: 'string' },
              finish_reason: { type: ['string', 'null'] },
            },
          },
        },
      },
      file: { const: file },
      query_id: { type: 'string' },
    },
  } as const
}

export const chatUploadSchema = {
  description: 'The files kept for the session, and the `query_id` and `session_id` a query names them by.',
  type: 'object',
  additionalProperties: false,
  required: ['query_id', 'session_id', 'files', 'expires_at'],
  properties: {
    query_id: { type: 'string' },
    session_id: { type: 'string' },
    files: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'kind', 'content_type', 'bytes'],
        properties: {
          name: { type: 'string' },
          kind: { enum: ['image', 'doc', 'audio'] },
          content_type: { type: 'string' },
          bytes: count,
          tokens: { ...count, description: 'Documents and audio: cl100k_base tokens of the text kept.' },
        },
      },
    },
    expires_at: { type: 'integer', description: 'Unix seconds.' },
  },
} as const
