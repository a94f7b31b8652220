import type { FromSchema } from 'json-schema-to-ts'
import { queryProvidersSchema } from '../../schemas/query-request.schema.js'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    providers: queryProvidersSchema,
    answer_route: {
      type: 'string',
      default: 'query-chat',
      description: 'The in-process chat route every model is asked through (kernel.call, streamed).',
    },
    tokenize_route: {
      type: 'string',
      default: 'tokenize-internal',
      description:
        "The in-process route that counts the prompt's parts with the model server's tokenizer (once, with the requested model's).",
    },
    default_system_prompt: {
      type: 'string',
      default: 'You are a helpful assistant.',
      description: 'The system prompt when the project has none.',
    },
    max_models: {
      type: 'integer',
      minimum: 1,
      maximum: 16,
      default: 8,
      description: "Most models one compare asks (the requested one first, then the project's compare_models).",
    },
    max_top_k: {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      default: 100,
      description: 'Largest `search_params.top_k`.',
    },
  },
} as const

export type QueryCompareConfig = FromSchema<typeof configSchema>
