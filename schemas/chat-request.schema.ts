/**
 * The chat completion request. Deliberately permissive: fields the gateway does not act on are
 * passed to the model server as sent, and the rules with messages of their own ("model is
 * required", reasoning effort, capabilities) are enforced by the plugins that own them.
 */
import type { FromSchema } from 'json-schema-to-ts'

const contentPart = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string' },
    text: { type: 'string' },
    image_url: {
      type: 'object',
      required: ['url'],
      properties: { url: { type: 'string' }, detail: { type: 'string' } },
    },
  },
} as const

export const chatRequestSchema = {
  $id: 'sluice:chat-request',
  type: 'object',
  properties: {
    model: { type: 'string' },
    messages: {
      type: 'array',
      items: {
        type: 'object',
        required: ['role'],
        properties: {
          role: { type: 'string' },
          content: { anyOf: [{ type: 'string' }, { type: 'array', items: contentPart }, { type: 'null' }] },
          tool_call_id: { type: 'string' },
          tool_calls: { type: 'array' },
          name: { type: 'string' },
        },
      },
    },
    stream: { type: 'boolean' },
    stream_options: {
      type: ['object', 'null'],
      properties: { include_usage: { type: 'boolean' } },
    },
    reasoning_effort: { type: ['string', 'null'] },
    max_tokens: { type: ['integer', 'null'], minimum: 0 },
    max_completion_tokens: { type: ['integer', 'null'], minimum: 0 },
    tools: { type: 'array' },
    tool_choice: { anyOf: [{ type: 'string' }, { type: 'object' }] },
    response_format: { type: 'object' },
  },
} as const

export type ChatRequest = FromSchema<typeof chatRequestSchema>
