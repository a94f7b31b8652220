/**
 * The compare request (spec 001, "Compare request", the WebSocket route `query_compare`): one
 * query answered by the requested model and the project's `compare_models` at once. As the spec
 * writes it, a compare has `action: "query"` and no `endpoint` (a query always has one), and is
 * served as such; `action: "query_compare"` names the route outright (docs/decisions.md).
 * `top_k` is Sluice's addition (the project default otherwise).
 */
import { fusionSchema, legsSchema } from './retrieval.schema.js'
import type { FromSchema } from 'json-schema-to-ts'
import { sessionIdSchema } from './query-request.schema.js'

const name = { type: 'string', minLength: 1, maxLength: 256 } as const

export const queryCompareRequestSchema = {
  $id: 'sluice:query-compare-request',
  type: 'object',
  required: ['action', 'query', 'model_provider', 'model_name'],
  additionalProperties: false,
  properties: {
    action: { type: 'string', enum: ['query', 'query_compare'] },
    query: { type: 'string', minLength: 1, maxLength: 1048576 },
    model_provider: { type: 'string', minLength: 1, maxLength: 64 },
    model_name: name,
    project_id: name,
    /** Spec 001, Authentication 2: what a service token sends with its own parameters (only `override_params`). */
    request_source: { type: 'string', maxLength: 64 },
    session_id: sessionIdSchema,
    enable_search: { type: 'boolean' },
    search_params: {
      type: 'object',
      additionalProperties: false,
      properties: {
        collection: name,
        top_k: { type: 'integer', minimum: 1, maximum: 100 },
        output_fields: {
          type: 'array',
          minItems: 1,
          maxItems: 64,
          uniqueItems: true,
          items: { type: 'string', minLength: 1, maxLength: 128 },
        },
        prompt_mode: { type: 'string', enum: ['default', 'custom'] },
        search_prompt: { type: 'string', maxLength: 65536 },
        // Sluice's extension, as on /query (docs/api-reference.md, "Fusion").
        legs: legsSchema,
        fusion: fusionSchema,
      },
    },
    response_format: {
      type: 'object',
      required: ['type'],
      additionalProperties: false,
      properties: { type: { type: 'string', enum: ['text', 'json', 'openai'] } },
    },
  },
} as const

export type QueryCompareRequest = FromSchema<typeof queryCompareRequestSchema>
