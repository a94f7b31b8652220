/**
 * The Anthropic Messages API as the gateway answers it (plugins/anthropic-messages;
 * protocols/anthropic/messages.ts): the Message, its stream events and the token count.
 */
const contentBlock = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { enum: ['text', 'thinking', 'tool_use'] },
    text: { type: 'string' },
    thinking: { type: 'string' },
    signature: { type: 'string' },
    id: { type: 'string' },
    name: { type: 'string' },
    input: {},
  },
} as const

const usage = {
  type: 'object',
  required: ['input_tokens', 'output_tokens'],
  properties: {
    input_tokens: { type: 'integer', minimum: 0, description: 'Prompt tokens not read from the prefix cache.' },
    output_tokens: { type: 'integer', minimum: 0 },
    cache_creation_input_tokens: { type: 'integer', minimum: 0 },
    cache_read_input_tokens: { type: 'integer', minimum: 0 },
  },
} as const

const stopReason = { enum: ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'refusal', null] } as const

export const messageSchema = {
  description: 'A Message (`type: message`); `model` as the request sent it.',
  type: 'object',
  required: ['id', 'type', 'role', 'model', 'content', 'stop_reason', 'stop_sequence', 'usage'],
  properties: {
    id: { type: 'string', pattern: '^msg_' },
    type: { const: 'message' },
    role: { const: 'assistant' },
    model: { type: 'string' },
    content: { type: 'array', items: contentBlock },
    stop_reason: stopReason,
    stop_sequence: { type: ['string', 'null'] },
    usage,
  },
} as const

/**
 * One event of a streamed Message (its `type` is also the SSE `event:` line): `message_start`,
 * per block `content_block_start`, `content_block_delta`, `content_block_stop`, then
 * `message_delta` and `message_stop`; a failed stream ends with `error`.
 */
export const messageEventSchema = {
  description: 'A Messages stream event; no `[DONE]`.',
  oneOf: [
    {
      type: 'object',
      required: ['type', 'message'],
      properties: { type: { const: 'message_start' }, message: messageSchema },
    },
    {
      type: 'object',
      required: ['type', 'index', 'content_block'],
      properties: { type: { const: 'content_block_start' }, index: { type: 'integer' }, content_block: contentBlock },
    },
    {
      type: 'object',
      required: ['type', 'index', 'delta'],
      properties: {
        type: { const: 'content_block_delta' },
        index: { type: 'integer' },
        delta: {
          type: 'object',
          required: ['type'],
          properties: { type: { enum: ['text_delta', 'thinking_delta', 'signature_delta', 'input_json_delta'] } },
        },
      },
    },
    {
      type: 'object',
      required: ['type', 'index'],
      properties: { type: { const: 'content_block_stop' }, index: { type: 'integer' } },
    },
    {
      type: 'object',
      required: ['type', 'delta', 'usage'],
      properties: {
        type: { const: 'message_delta' },
        delta: {
          type: 'object',
          required: ['stop_reason'],
          properties: { stop_reason: stopReason, stop_sequence: { type: ['string', 'null'] } },
        },
        usage,
      },
    },
    { type: 'object', required: ['type'], properties: { type: { const: 'message_stop' } } },
    {
      type: 'object',
      required: ['type', 'error'],
      properties: {
        type: { const: 'error' },
        error: {
          type: 'object',
          required: ['type', 'message'],
          properties: { type: { type: 'string' }, message: { type: 'string' } },
        },
      },
    },
  ],
} as const

export const messageTokenCountSchema = {
  description: "The prompt's tokens by the model server's tokenizer (or the gateway's estimate).",
  type: 'object',
  additionalProperties: false,
  required: ['input_tokens'],
  properties: { input_tokens: { type: 'integer', minimum: 0 } },
} as const
