/**
 * The Query service's request (spec 001, "Query request"), over REST and WebSocket, and the
 * per-project defaults it falls back on. The schema checks types and bounds at the door; the
 * rules that depend on a project's defaults (search_params when search is on, `collection` with
 * a developer token, the rerank trio, `{data}` and `{query}` in a custom prompt) are checked by
 * the `query` plugin after the defaults are merged, so a default can satisfy them.
 *
 * Unknown fields are refused (400 naming them): the spec is strict about its fields, and a
 * misspelt `enable_serach` silently ignored is the error users of RAG services complain of.
 */
import type { FromSchema } from 'json-schema-to-ts'
import { fusionSchema, legsSchema } from './retrieval.schema.js'

const boolOrString = { oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['true', 'false'] }] } as const
const name = { type: 'string', minLength: 1, maxLength: 256 } as const
const names = { type: 'array', maxItems: 1000, items: { type: 'string', minLength: 1, maxLength: 1024 } } as const

/** A function the model may call (OpenAI's tool shape). */
const tool = {
  type: 'object',
  required: ['type', 'function'],
  additionalProperties: false,
  properties: {
    type: { const: 'function' },
    function: {
      type: 'object',
      required: ['name'],
      additionalProperties: false,
      properties: {
        name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
        description: { type: 'string', maxLength: 4096 },
        parameters: { type: 'object' },
        strict: { type: 'boolean' },
      },
    },
  },
} as const

/**
 * A session id, as every Query service body and the chat upload take it: one rule, so an upload
 * never hands out (or accepts) a session id that a query then refuses.
 */
export const SESSION_ID_MAX_LENGTH = 128
export const sessionIdSchema = { type: 'string', minLength: 1, maxLength: SESSION_ID_MAX_LENGTH } as const

export const modelParamsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    system_prompt: { type: 'string', maxLength: 65536 },
    top_p: { type: 'number', minimum: 0, maximum: 1 },
    top_k: { type: 'integer', minimum: 1, maximum: 1000 },
    thinking_level: { type: 'string', enum: ['LOW', 'MEDIUM', 'HIGH'] },
    max_tokens: { type: 'integer', minimum: 1 },
    tools: { type: 'array', maxItems: 128, items: tool },
    response_format: {
      type: 'object',
      required: ['type'],
      additionalProperties: false,
      properties: {
        type: { type: 'string', enum: ['json_schema', 'json_object', 'text'] },
        json_schema: {
          type: 'object',
          required: ['name', 'schema'],
          additionalProperties: false,
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 64 },
            strict: { type: 'boolean' },
            schema: { type: 'object' },
            description: { type: 'string' },
          },
        },
      },
    },
    // Realtime (WebSocket): the voice and audio formats of the spoken answer.
    voice: name,
    input_audio_format: { type: 'string', enum: ['pcm16', 'wav', 'mp3', 'flac', 'ogg', 'webm', 'm4a'] },
    output_audio_format: { type: 'string', enum: ['pcm16', 'wav', 'mp3'] },
    modalities: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: ['text', 'audio'] } },
  },
} as const

export const searchParamsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    collection: name,
    db_type: { type: 'string', maxLength: 64 },
    retrieval_type: { type: 'string', enum: ['chunk', 'document', 'neighbor'] },
    top_k: { type: 'integer', minimum: 1, maximum: 100 },
    output_fields: {
      type: 'array',
      minItems: 1,
      maxItems: 64,
      uniqueItems: true,
      items: { type: 'string', minLength: 1, maxLength: 128 },
    },
    tags: names,
    source_names: names,
    expr: { type: 'string', maxLength: 4096 },
    rerank: boolOrString,
    reranker_model: name,
    reranker_provider: { type: 'string', minLength: 1, maxLength: 64 },
    top_n: { type: 'integer', minimum: 1, maximum: 100 },
    advanced_rag: boolOrString,
    // Sluice's extension (docs/api-reference.md, "Fusion"): the legs and how they are fused.
    legs: legsSchema,
    fusion: fusionSchema,
    prompt_mode: { type: 'string', enum: ['restricted', 'unrestricted', 'custom', 'default'] },
    search_prompt: { type: 'string', maxLength: 65536 },
  },
} as const

export const enhancePromptSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    timezone: { type: 'string', minLength: 1, maxLength: 64 },
    time: { type: 'boolean' },
    date: { type: 'boolean' },
    verbosity: { type: 'string', enum: ['brief', 'normal', 'detailed'] },
  },
} as const

/** One earlier message of a caller-supplied `history` (docs/api-reference.md, "history"). */
export const historyItemSchema = {
  type: 'object',
  required: ['role', 'content'],
  additionalProperties: false,
  properties: {
    role: { type: 'string', enum: ['user', 'assistant'] },
    content: { type: 'string', maxLength: 1048576 },
  },
} as const

const fileNames = {
  type: 'array',
  maxItems: 20,
  uniqueItems: true,
  items: { type: 'string', minLength: 1, maxLength: 255 },
} as const

/** The fields a project may give defaults for: everything but the query and its identifiers. */
const defaultable = {
  model_provider: { type: 'string', minLength: 1, maxLength: 64 },
  model_name: name,
  model_params: modelParamsSchema,
  enable_search: { type: 'boolean' },
  search_params: searchParamsSchema,
  enable_history: { type: 'boolean' },
  response_format: {
    type: 'object',
    required: ['type'],
    additionalProperties: false,
    properties: { type: { type: 'string', enum: ['text', 'json', 'openai'] } },
  },
  enhance_prompt: enhancePromptSchema,
  eval_params: {
    type: 'object',
    additionalProperties: false,
    properties: { context_utilization: { type: 'boolean' }, prompt_guard: { type: 'boolean' } },
  },
} as const

/** A project's defaults (config/projects.yaml or the admin API). */
export const queryDefaultsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: defaultable,
} as const

export const queryRequestSchema = {
  $id: 'sluice:query-request',
  type: 'object',
  required: ['endpoint', 'query'],
  additionalProperties: false,
  properties: {
    endpoint: { type: 'string', enum: ['query', 'realtime'] },
    action: { type: 'string', maxLength: 64 },
    request_source: { type: 'string', maxLength: 64 },
    query: { type: 'string', minLength: 1, maxLength: 1048576 },
    project_id: name,
    session_id: sessionIdSchema,
    query_id: { type: 'string', minLength: 1, maxLength: 128 },
    history: { type: 'array', maxItems: 1000, items: historyItemSchema },
    chat_upload: {
      type: 'object',
      additionalProperties: false,
      properties: { images: fileNames, docs: fileNames, audios: fileNames },
    },
    // Realtime (WebSocket): base64 audio and semantic caching.
    audio_file: { type: 'string', minLength: 1 },
    semantic_caching: { type: 'boolean' },
    // The client's id of a request on a WebSocket, echoed in every reply message.
    id: { type: 'string', minLength: 1, maxLength: 128 },
    ...defaultable,
  },
} as const

export type QueryRequest = FromSchema<typeof queryRequestSchema>
export type QueryDefaults = FromSchema<typeof queryDefaultsSchema>
export type ModelParams = FromSchema<typeof modelParamsSchema>
export type SearchParams = FromSchema<typeof searchParamsSchema>
export type EnhancePrompt = FromSchema<typeof enhancePromptSchema>
export type HistoryItem = FromSchema<typeof historyItemSchema>

/**
 * The `providers` option of the steps that answer queries (`query`, `query-compare`): the
 * `model_provider` values a request may name. `gateway` is Sluice's own catalog; another is an
 * OpenAI-compatible server declared as a backend of models.yaml.
 */
export const queryProvidersSchema = {
  type: 'object',
  description:
    "`model_provider` values: `gateway` (Sluice's own catalog: `model_name` is a catalog id, a family or `auto`) and OpenAI-compatible endpoints, each a backend of models.yaml (`model_name` is a model it serves, by catalog id or served name). Every provider is reached through the gateway's routes, so it is queued, budgeted and recorded the same way.",
  additionalProperties: {
    type: 'object',
    additionalProperties: false,
    properties: {
      backend: {
        type: 'string',
        minLength: 1,
        description: 'The models.yaml backend of this provider; unset: the whole catalog.',
      },
    },
  },
  default: { gateway: {} },
} as const
