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
      description: 'The in-process chat route the answer is asked of (kernel.call).',
    },
    tokenize_route: {
      type: 'string',
      default: 'tokenize-internal',
      description: "The in-process route that counts the prompt's parts with the model server's tokenizer.",
    },
    default_system_prompt: {
      type: 'string',
      default: 'You are a helpful assistant.',
      description: 'The system prompt when neither the request nor the project gives one.',
    },
    no_answer_text: {
      type: 'string',
      minLength: 1,
      default: 'I could not find the answer to this question in the documents of this collection.',
      description:
        'The answer of `restricted` mode when no retrieved passage bears on the question (no model is asked).',
    },
    history_budget_tokens: {
      type: 'integer',
      minimum: 0,
      default: 2000,
      description: 'Most tokens of earlier turns put into a prompt (newest first).',
    },
    history_turns: {
      type: 'integer',
      minimum: 0,
      maximum: 1000,
      default: 50,
      description: 'Most stored turns read for a prompt.',
    },
    search: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        max_top_k: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
        neighbor_window: { type: 'integer', minimum: 0, maximum: 10, default: 1 },
        variants: { type: 'integer', minimum: 1, maximum: 3, default: 3 },
        variants_model: {
          type: 'string',
          minLength: 1,
          description: "Writes `advanced_rag`'s query variants; default: the catalog's default model.",
        },
        rerank_candidates: { type: 'integer', minimum: 1, maximum: 1000, default: 50 },
      },
    },
    evaluation: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        judge_model: {
          type: 'string',
          minLength: 1,
          description: "Judges `context_utilization`; default: the catalog's default model.",
        },
        guard_model: {
          type: 'string',
          minLength: 1,
          description: "Judges `prompt_guard`; default: the catalog's default model.",
        },
      },
    },
  },
} as const

export type QueryConfig = FromSchema<typeof configSchema>
