/**
 * The OpenAI Responses API as the gateway answers it (plugins/openai-responses;
 * protocols/openai/responses-types.ts): the Response object, its stream events, a stored
 * response's deletion and its input items.
 */
const outputItem = {
  type: 'object',
  required: ['type', 'id'],
  properties: {
    type: { enum: ['message', 'reasoning', 'function_call'] },
    id: { type: 'string' },
    status: { type: 'string' },
    role: { const: 'assistant' },
    content: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type', 'text'],
        properties: { type: { const: 'output_text' }, text: { type: 'string' } },
      },
    },
    summary: { type: 'array', items: { type: 'object', required: ['type', 'text'] } },
    encrypted_content: { type: ['string', 'null'] },
    call_id: { type: 'string' },
    name: { type: 'string' },
    arguments: { type: 'string' },
  },
} as const

export const responseObjectSchema = {
  description: 'A Response (`object: response`); `model` names the model server that answered.',
  type: 'object',
  required: ['id', 'object', 'created_at', 'status', 'model', 'output', 'usage'],
  properties: {
    id: { type: 'string', pattern: '^resp_' },
    object: { const: 'response' },
    created_at: { type: 'integer' },
    status: { enum: ['in_progress', 'completed', 'incomplete', 'failed'] },
    error: { type: ['object', 'null'] },
    incomplete_details: { type: ['object', 'null'] },
    instructions: { type: ['string', 'null'] },
    max_output_tokens: { type: ['integer', 'null'] },
    model: { type: 'string' },
    output: { type: 'array', items: outputItem },
    previous_response_id: { type: ['string', 'null'] },
    store: { type: 'boolean' },
    usage: {
      anyOf: [
        {
          type: 'object',
          required: ['input_tokens', 'output_tokens', 'total_tokens'],
          properties: {
            input_tokens: { type: 'integer', minimum: 0 },
            input_tokens_details: { type: 'object', properties: { cached_tokens: { type: 'integer' } } },
            output_tokens: { type: 'integer', minimum: 0 },
            output_tokens_details: { type: 'object', properties: { reasoning_tokens: { type: 'integer' } } },
            total_tokens: { type: 'integer', minimum: 0 },
          },
        },
        { type: 'null' },
      ],
    },
    metadata: { type: 'object', additionalProperties: { type: 'string' } },
  },
} as const

/**
 * One event of a streamed Response (its `type` is also the SSE `event:` line): `response.created`
 * … `response.completed` (or `.incomplete`, or `.failed` then `error`), each with
 * `sequence_number` counting from 0. The events that carry the Response carry it whole.
 */
export const responseEventSchema = {
  description: 'A Responses stream event; no `[DONE]` follows the last.',
  type: 'object',
  required: ['type', 'sequence_number'],
  properties: {
    type: { type: 'string', pattern: '^(response\\.[a-z_.]+|error)$' },
    sequence_number: { type: 'integer', minimum: 0 },
  },
  if: {
    properties: {
      type: {
        enum: [
          'response.created',
          'response.in_progress',
          'response.completed',
          'response.incomplete',
          'response.failed',
        ],
      },
    },
  },
  then: { required: ['response'], properties: { response: responseObjectSchema } },
} as const

export const responseDeletedSchema = {
  description: 'A stored response, deleted.',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'object', 'deleted'],
  properties: { id: { type: 'string' }, object: { const: 'response' }, deleted: { const: true } },
} as const

export const responseInputItemsSchema = {
  description: "A page of a stored response's input items (`order`, `limit`, `after` in the query).",
  type: 'object',
  additionalProperties: false,
  required: ['object', 'data', 'first_id', 'last_id', 'has_more'],
  properties: {
    object: { const: 'list' },
    data: { type: 'array', items: { type: 'object' } },
    first_id: { type: ['string', 'null'] },
    last_id: { type: ['string', 'null'] },
    has_more: { type: 'boolean' },
  },
} as const
