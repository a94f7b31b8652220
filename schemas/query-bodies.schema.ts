/**
 * The Query service's other REST body types (spec 001, rule 2: search, vision and rerank; the
 * spec does not show their bodies), designed after the query request: the same `query`,
 * `project_id` and `request_source` at the root, the query's `search_params` and
 * `model_params` fields where they mean the same thing, and `endpoint` (optional here) naming
 * the body type. Unknown fields are refused (400 naming them), as for the query request.
 * docs/api-reference.md, "Query service: search", "… vision", "… rerank".
 */
import type { FromSchema } from 'json-schema-to-ts'
import { modelParamsSchema, searchParamsSchema } from './query-request.schema.js'

const name = { type: 'string', minLength: 1, maxLength: 256 } as const
const query = { type: 'string', minLength: 1, maxLength: 1048576 } as const

/** What every body type carries at its root, as the query request does. */
const root = {
  query,
  project_id: name,
  request_source: {
    type: 'string',
    maxLength: 64,
    description: '`override_params` to send own parameters with a service token.',
  },
} as const

/** The query's search_params without the prompt fields (a search makes no prompt). */
const { prompt_mode: _promptMode, search_prompt: _searchPrompt, ...searchOnly } = searchParamsSchema.properties

export const querySearchRequestSchema = {
  $id: 'sluice:query-search-request',
  type: 'object',
  required: ['query'],
  additionalProperties: false,
  properties: {
    endpoint: { const: 'search' },
    ...root,
    search_params: { type: 'object', additionalProperties: false, properties: searchOnly },
  },
} as const

/** The model settings a one-image question takes: the query's, without tools and structured output. */
const {
  tools: _tools,
  response_format: _responseFormat,
  voice: _voice,
  input_audio_format: _in,
  output_audio_format: _out,
  modalities: _modalities,
  ...visionParams
} = modelParamsSchema.properties

export const MAX_VISION_IMAGE_CHARS = 28_000_000 // about 20 MiB of image once base64 is decoded

export const queryVisionRequestSchema = {
  $id: 'sluice:query-vision-request',
  type: 'object',
  required: ['query', 'image'],
  additionalProperties: false,
  properties: {
    endpoint: { const: 'vision' },
    ...root,
    image: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_VISION_IMAGE_CHARS,
      description: 'A data URL, bare base64 with `image_content_type`, or a public https:// URL.',
    },
    image_content_type: {
      type: 'string',
      pattern: '^image/[A-Za-z0-9.+-]+$',
      description: 'The type of bare base64 `image` data, e.g. image/png.',
    },
    model_provider: { type: 'string', minLength: 1, maxLength: 64 },
    model_name: name,
    model_params: { type: 'object', additionalProperties: false, properties: visionParams },
  },
} as const

export const MAX_QUERY_RERANK_DOCUMENTS = 1000

export const queryRerankRequestSchema = {
  $id: 'sluice:query-rerank-request',
  type: 'object',
  required: ['query', 'documents', 'reranker_model'],
  additionalProperties: false,
  properties: {
    endpoint: { const: 'rerank' },
    ...root,
    documents: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_QUERY_RERANK_DOCUMENTS,
      items: { type: 'string', minLength: 1 },
    },
    reranker_model: name,
    reranker_provider: { type: 'string', minLength: 1, maxLength: 64 },
    top_n: { type: 'integer', minimum: 1, maximum: MAX_QUERY_RERANK_DOCUMENTS },
  },
} as const

export type QuerySearchRequest = FromSchema<typeof querySearchRequestSchema>
export type QueryVisionRequest = FromSchema<typeof queryVisionRequestSchema>
export type QueryRerankRequest = FromSchema<typeof queryRerankRequestSchema>
