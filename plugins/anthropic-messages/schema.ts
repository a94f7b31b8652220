import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    mode: {
      type: 'string',
      enum: ['messages', 'count_tokens'],
      default: 'messages',
      description:
        '`messages`: translate the request to a chat completion and the reply (JSON or stream) back to a message. `count_tokens`: translate only what a prompt count needs; a later step (token-count) answers `{"input_tokens"}`.',
    },
  },
} as const

export type AnthropicMessagesConfig = FromSchema<typeof configSchema>
