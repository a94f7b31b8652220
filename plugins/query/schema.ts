import type { FromSchema } from 'json-schema-to-ts'
import { queryProvidersSchema } from '../../schemas/query-request.schema.js'
import { DEFAULT_GUARD } from './relevance.js'

/** The guard's two settings, for the route and for one collection (relevance.ts). */
const guardFields = {
  min_coverage: {
    type: 'number',
    minimum: 0,
    maximum: 1,
    description:
      "Least share of the question's content words found in the first `passages` retrieved; below it, `no_answer_text` without a model call. 0: only when no word at all is shared.",
  },
  passages: {
    type: 'integer',
    minimum: 1,
    maximum: 100,
    description: 'How many of the first retrieved passages the guard reads.',
  },
  names: {
    type: 'boolean',
    description:
      'Also refuse when the question writes as a name (a capital after its first word, or inside a word) a word that neither those passages nor the collection contains.',
  },
} as const

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
    restricted_guard: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description:
        "`restricted` mode's relevance guard (relevance.ts; docs/operator-guide.md, \"Restricted mode's guard\"): the route's setting, and per collection by name.",
      properties: {
        min_coverage: { ...guardFields.min_coverage, default: DEFAULT_GUARD.minCoverage },
        passages: { ...guardFields.passages, default: DEFAULT_GUARD.passages },
        names: { ...guardFields.names, default: DEFAULT_GUARD.names },
        collections: {
          type: 'object',
          description:
            "A collection's own settings, by collection name (in every project); a field left out is the route's.",
          additionalProperties: { type: 'object', additionalProperties: false, properties: guardFields },
        },
      },
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
