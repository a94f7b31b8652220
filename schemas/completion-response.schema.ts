/**
 * The text completion as the gateway answers it (POST /v1/completions), whole and streamed: the
 * model server's body, relayed, in OpenAI's legacy shape (`object: text_completion`, also on
 * each streamed chunk; the usage chunk has `choices: []`).
 */
import { openAIUsageSchema } from './chat-response.schema.js'

const choice = {
  type: 'object',
  required: ['index', 'text'],
  properties: {
    index: { type: 'integer', minimum: 0 },
    text: { type: 'string' },
    logprobs: { type: ['object', 'null'] },
    finish_reason: { type: ['string', 'null'] },
  },
} as const

export const completionSchema = {
  description: 'A text completion (`object: text_completion`).',
  type: 'object',
  required: ['id', 'object', 'created', 'model', 'choices'],
  properties: {
    id: { type: 'string' },
    object: { const: 'text_completion' },
    created: { type: 'integer' },
    model: { type: 'string' },
    choices: { type: 'array', items: choice },
    usage: { anyOf: [openAIUsageSchema, { type: 'null' }] },
  },
} as const
