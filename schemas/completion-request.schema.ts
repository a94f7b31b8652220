/** The legacy completions request: prompt in, text out. Other fields pass through as sent. */
import type { FromSchema } from 'json-schema-to-ts'

export const completionRequestSchema = {
  $id: 'sluice:completion-request',
  type: 'object',
  properties: {
    model: { type: 'string' },
    prompt: { anyOf: [{ type: 'string' }, { type: 'array' }] },
    stream: { type: 'boolean' },
    stream_options: { type: ['object', 'null'], properties: { include_usage: { type: 'boolean' } } },
    max_tokens: { type: ['integer', 'null'], minimum: 0 },
  },
} as const

export type CompletionRequest = FromSchema<typeof completionRequestSchema>
