/**
 * The chat completion as the gateway answers it (POST /v1/chat/completions), whole and
 * streamed, in OpenAI's shape. The body is the model server's, relayed (backend plugin) or
 * composed by the boons (tool rounds, an accepted draft): the schemas name what every answer
 * carries and leave the rest open, since servers add fields of their own (vLLM's
 * `stop_reason`, `kv_transfer_params` …). `reasoning` (or `reasoning_content`) holds thinking.
 */
/** `usage` in OpenAI's shape; `prompt_tokens_details.cached_tokens` when the server reports it. */
export const openAIUsageSchema = {
  type: 'object',
  required: ['prompt_tokens', 'total_tokens'],
  properties: {
    prompt_tokens: { type: 'integer', minimum: 0 },
    completion_tokens: { type: 'integer', minimum: 0 },
    total_tokens: { type: 'integer', minimum: 0 },
    prompt_tokens_details: {
      type: ['object', 'null'],
      properties: { cached_tokens: { type: ['integer', 'null'], minimum: 0 } },
    },
  },
} as const

const toolCall = {
  type: 'object',
  required: ['id', 'type', 'function'],
  properties: {
    id: { type: 'string' },
    type: { const: 'function' },
    function: {
      type: 'object',
      required: ['name', 'arguments'],
      properties: { name: { type: 'string' }, arguments: { type: 'string', description: 'JSON text.' } },
    },
  },
} as const

const finishReason = {
  type: ['string', 'null'],
  description: '`stop`, `length`, `tool_calls`, `content_filter` … (null on chunks before the last).',
} as const

export const chatCompletionSchema = {
  description: 'A chat completion (`object: chat.completion`); `model` names the model server that answered.',
  type: 'object',
  required: ['id', 'object', 'created', 'model', 'choices'],
  properties: {
    id: { type: 'string' },
    object: { const: 'chat.completion' },
    created: { type: 'integer' },
    model: { type: 'string' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'message', 'finish_reason'],
        properties: {
          index: { type: 'integer', minimum: 0 },
          message: {
            type: 'object',
            required: ['role'],
            properties: {
              role: { const: 'assistant' },
              content: { type: ['string', 'null'] },
              reasoning: { type: ['string', 'null'], description: "The model's thinking, when it thinks." },
              reasoning_content: { type: ['string', 'null'] },
              tool_calls: { type: ['array', 'null'], items: toolCall },
              refusal: { type: ['string', 'null'] },
            },
          },
          logprobs: { type: ['object', 'null'] },
          finish_reason: finishReason,
        },
      },
    },
    usage: { anyOf: [openAIUsageSchema, { type: 'null' }] },
    system_fingerprint: { type: ['string', 'null'] },
  },
} as const

export const chatCompletionChunkSchema = {
  description:
    'One chunk of a streamed chat completion (`object: chat.completion.chunk`); the usage chunk (with `stream_options.include_usage`) has `choices: []`.',
  type: 'object',
  required: ['id', 'object', 'created', 'model', 'choices'],
  properties: {
    id: { type: 'string' },
    object: { const: 'chat.completion.chunk' },
    created: { type: 'integer' },
    model: { type: 'string' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'delta'],
        properties: {
          index: { type: 'integer', minimum: 0 },
          delta: {
            type: 'object',
            properties: {
              role: { type: 'string' },
              content: { type: ['string', 'null'] },
              reasoning: { type: ['string', 'null'] },
              reasoning_content: { type: ['string', 'null'] },
              tool_calls: { type: ['array', 'null'] },
            },
          },
          logprobs: { type: ['object', 'null'] },
          finish_reason: finishReason,
        },
      },
    },
    usage: { anyOf: [openAIUsageSchema, { type: 'null' }] },
  },
} as const

/**
 * The in-band error that ends a failed OpenAI-style stream (no `[DONE]` follows):
 * `{"error":{"message","type","code"}}`, `code` the HTTP status the error would have had.
 */
export const streamErrorEventSchema = {
  description: 'The last event of a stream that failed; no `[DONE]` follows.',
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type'],
      properties: {
        message: { type: 'string' },
        type: { type: 'string' },
        code: { type: ['string', 'integer', 'null'] },
      },
    },
  },
} as const
