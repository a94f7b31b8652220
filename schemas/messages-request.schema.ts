/**
 * The Anthropic Messages request (`POST /v1/messages`) and its token count
 * (`POST /v1/messages/count_tokens`, the same body without `max_tokens`). The schema types the
 * envelope; content blocks are read by the `anthropic-messages` plugin, which names a bad block
 * by its path as Anthropic's API does. `model` is left to the `model` step ("model is
 * required"); unknown fields (metadata, service_tier, cache_control ...) are accepted and ignored.
 */
import type { FromSchema } from 'json-schema-to-ts'

const block = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string' } },
} as const

const properties = {
  model: { type: 'string' },
  messages: {
    type: 'array',
    items: {
      type: 'object',
      required: ['role', 'content'],
      properties: {
        role: { type: 'string', enum: ['user', 'assistant', 'system'] },
        content: { anyOf: [{ type: 'string' }, { type: 'array', items: block }] },
      },
    },
  },
  system: {
    anyOf: [
      { type: 'string' },
      {
        type: 'array',
        items: {
          type: 'object',
          required: ['type', 'text'],
          properties: { type: { const: 'text' }, text: { type: 'string' } },
        },
      },
    ],
  },
  max_tokens: { type: 'integer', minimum: 1 },
  stop_sequences: { type: 'array', items: { type: 'string' } },
  stream: { type: 'boolean' },
  temperature: { type: 'number', minimum: 0 },
  top_p: { type: 'number', minimum: 0, maximum: 1 },
  top_k: { type: 'integer', minimum: 0 },
  tools: {
    type: 'array',
    items: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string' },
        type: { type: 'string' },
        description: { type: 'string' },
        input_schema: { type: 'object' },
      },
    },
  },
  tool_choice: {
    type: 'object',
    required: ['type'],
    properties: {
      type: { type: 'string', enum: ['auto', 'any', 'tool', 'none'] },
      name: { type: 'string' },
      disable_parallel_tool_use: { type: 'boolean' },
    },
  },
  thinking: {
    type: 'object',
    required: ['type'],
    properties: {
      type: { type: 'string', enum: ['enabled', 'disabled', 'adaptive'] },
      budget_tokens: { type: 'integer', minimum: 1024 },
    },
  },
  output_config: {
    type: 'object',
    properties: {
      effort: { type: ['string', 'null'], enum: ['low', 'medium', 'high', 'xhigh', 'max', null] },
      format: {
        type: ['object', 'null'],
        required: ['type', 'schema'],
        properties: { type: { const: 'json_schema' }, schema: { type: 'object' } },
      },
    },
  },
  metadata: { type: 'object' },
} as const

export const messagesRequestSchema = {
  $id: 'sluice:messages-request',
  type: 'object',
  required: ['messages', 'max_tokens'],
  properties,
} as const

export const messagesCountRequestSchema = {
  $id: 'sluice:messages-count-request',
  type: 'object',
  required: ['messages'],
  properties,
} as const

export type MessagesRequestBody = FromSchema<typeof messagesRequestSchema>
