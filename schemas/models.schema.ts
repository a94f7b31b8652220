/**
 * `config/models.yaml`: the model catalog, its families, and the model servers behind it.
 * Every field of the spec's model entry is here; what the gateway needs beyond the entry
 * (backend, upstream names, reasoning mapping, retirement behaviour, prices) sits beside it.
 */
import type { FromSchema } from 'json-schema-to-ts'
import { audioSettingsSchema } from './audio.schema.js'

const boon = {
  type: 'object',
  additionalProperties: false,
  properties: {
    active: { type: 'boolean', default: true },
    helper_model: { type: 'string', description: 'Catalog id of the model that does the work.' },
  },
} as const

/**
 * The speculation boon: `helper_model` is the small draft model; the model itself checks the
 * draft (plugins/boons/README.md, "speculation").
 */
const speculationBoon = {
  type: 'object',
  additionalProperties: false,
  properties: {
    active: { type: 'boolean', default: true },
    helper_model: { type: 'string', description: 'Catalog id of the small draft model that answers first.' },
    min_yes_probability: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      default: 0.5,
      description:
        "The draft is accepted when the model's probability of answering `yes` to the check (over `yes` and `no`, from its top logprobs) is at least this; without logprobs, when its one token is `yes`.",
    },
    max_draft_tokens: {
      type: 'integer',
      minimum: 1,
      default: 512,
      description:
        "Longest draft (the request's own max_tokens when lower). A draft cut at this length is rejected without a check: it is not a complete answer.",
    },
  },
} as const

const level = { type: 'string', enum: ['none', 'low', 'medium', 'high'] } as const

/** Request fields merged into the upstream body for one reasoning level. */
const levelMapping = {
  type: 'object',
  description:
    'Fields merged into the request sent to the model server at this level, e.g. {chat_template_kwargs: {enable_thinking: false}} or {reasoning_effort: low} or {thinking_token_budget: 512}.',
  additionalProperties: true,
} as const

/** How a backend with several replicas picks one (docs/operator-guide.md, "Replicas"). */
const routingSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    policy: {
      type: 'string',
      enum: ['prefix_aware', 'least_loaded', 'round_robin'],
      default: 'prefix_aware',
      description:
        '`prefix_aware`: a prompt whose prefix a replica served goes back to it while that replica is not overloaded, else the least loaded; `least_loaded`: fewest outstanding requests; `round_robin`: in turn.',
    },
    prefix_block_chars: {
      type: 'integer',
      minimum: 16,
      default: 256,
      description: 'Characters of the rendered prompt per hashed prefix block.',
    },
    prefix_index_blocks: {
      type: 'integer',
      minimum: 1,
      default: 65536,
      description: 'Block hashes remembered (least recently used forgotten first).',
    },
    overload_slack: {
      type: 'integer',
      minimum: 0,
      default: 4,
      description:
        "A replica is overloaded when its outstanding requests exceed the least loaded replica's by more than this.",
    },
  },
} as const

/** Active health checks of each replica (only for a backend with several). */
const healthCheckSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    path: {
      type: 'string',
      pattern: '^/',
      default: '/health',
      description:
        'GET below the replica URL; any status below 400 passes (vLLM, SGLang, llama.cpp and TGI all serve /health).',
    },
    interval_ms: { type: 'integer', minimum: 50, default: 5000 },
    timeout_ms: { type: 'integer', minimum: 10, default: 2000 },
  },
} as const

/** Passive outlier ejection in Envoy's manner (only for a backend with several replicas). */
const outlierSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    consecutive_failures: {
      type: 'integer',
      minimum: 1,
      default: 5,
      description: 'Consecutive 5xx answers or connection failures that eject a replica.',
    },
    base_ejection_ms: {
      type: 'integer',
      minimum: 1,
      default: 30000,
      description:
        'Ejected for this times the number of times it was ejected; back in after that and a passing health check.',
    },
    max_ejection_percent: {
      type: 'integer',
      minimum: 0,
      maximum: 100,
      default: 50,
      description: 'At most this share of the replicas ejected at once (one may always be).',
    },
  },
} as const

/**
 * The model's opt-in to the exact-match response cache (the `response-cache` step of a route;
 * plugins/response-cache/README.md). Absent or `false`: its answers are never cached.
 */
const modelCacheSchema = {
  description:
    "Opts the model in to the response cache: `true` (the route's TTL, every request), or `{ttl_s, requests, charge}`. Absent or false: never cached. A request's `x-gateway-cache: off` always skips it.",
  anyOf: [
    { type: 'boolean' },
    {
      type: 'object',
      additionalProperties: false,
      properties: {
        ttl_s: {
          type: 'integer',
          minimum: 1,
          maximum: 2592000,
          description: "Seconds an answer is served from the cache (default: the route's `ttl_s`, 300).",
        },
        requests: {
          type: 'string',
          enum: ['all', 'opt_in'],
          description:
            '`all` (default): every request uses the cache unless it sends `x-gateway-cache: off`; `opt_in`: only requests that send `x-gateway-cache: on`.',
        },
        charge: {
          type: 'string',
          enum: ['none', 'full'],
          description:
            "What budgets are charged for a hit: `none` (default: a hit is free) or `full` (the cached answer's tokens at the model's prices, as a miss).",
        },
      },
    },
  ],
} as const

/**
 * What one request may ask of a chat model, checked by the `capabilities` step before any
 * budget, queue slot or model server is spent on it (docs/operator-guide.md, "Request bounds").
 */
const requestLimitsSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'The most a request may ask of this model; more gets 400 naming the field and the limit.',
  properties: {
    max_n: {
      type: 'integer',
      minimum: 1,
      default: 16,
      description: 'Most choices per request (`n`; `best_of` of /v1/completions too).',
    },
    max_output_tokens: {
      type: 'integer',
      minimum: 1,
      description:
        "Most output tokens per choice (`max_tokens`, `max_completion_tokens`, the Responses API's `max_output_tokens`). Default: the model's context_window.",
    },
    max_top_logprobs: {
      type: 'integer',
      minimum: 0,
      default: 20,
      description:
        "Most alternatives per token (`top_logprobs`; the integer `logprobs` of /v1/completions). vLLM's own default cap is 20.",
    },
  },
} as const

export const backendSchema = {
  type: 'object',
  additionalProperties: false,
  anyOf: [{ required: ['url'] }, { required: ['replicas'] }],
  properties: {
    url: {
      type: 'string',
      description:
        "Base URL of the model server's OpenAI-compatible API (ending before /v1), or `embedded` for the in-process simulator, or `embedded-embedder` for the in-process Universal Sentence Encoder lite (model `use-lite`).",
    },
    replicas: {
      type: 'array',
      minItems: 1,
      maxItems: 31,
      uniqueItems: true,
      items: { type: 'string', pattern: '^(https?://|\\$\\{)' },
      description:
        'Base URLs of several replicas of the same model server (beside `url`, which is then the first, or instead of it; 32 in all at most). Load is spread and failing replicas are taken out (docs/operator-guide.md, "Replicas").',
    },
    routing: routingSchema,
    health_check: healthCheckSchema,
    outlier_detection: outlierSchema,
    protocol: { type: 'string', enum: ['openai'], default: 'openai', description: 'Which adapter speaks to it.' },
    capacity: {
      type: 'integer',
      minimum: 1,
      default: 8,
      description: 'Concurrent requests the server runs at once (the fair queue keeps to it).',
    },
    connections: { type: 'integer', minimum: 1, default: 64, description: 'Keep-alive connections in the pool.' },
    http2: {
      type: 'boolean',
      default: false,
      description:
        'Speak HTTP/2 to this server: negotiated over TLS for an https URL, with prior knowledge (h2c) for an http URL. Each of `connections` then carries up to 100 requests at once (fewer if the server says so), so many streams hold few sockets. Only for a server that speaks it (vLLM and llama.cpp serve HTTP/1.1 only; a proxy in front of them such as Envoy can take HTTP/2).',
    },
    api_key: {
      type: 'string',
      description:
        // biome-ignore lint/suspicious/noTemplateCurlyInString: models.yaml's own ${NAME} syntax, not a template
        'Bearer token the model server expects, if any. Write `${NAME}` to read it from the environment variable NAME at load (any string of a backend may name variables so).',
    },
    timeout_ms: {
      type: 'integer',
      minimum: 1,
      description:
        "Longest wait for a replica to start answering: its response headers and, for a stream, its first bytes; for a reply read whole, its end. Past it the attempt fails as an unreachable replica does: another replica is tried, then the model's fallbacks. Unset: only the request's own time limit applies.",
    },
    headers: {
      type: 'object',
      additionalProperties: { type: 'string' },
      default: {},
      description: 'Extra headers sent upstream.',
    },
    forward_headers: {
      type: 'array',
      items: { type: 'string', pattern: '^[a-z0-9-]+$' },
      default: [],
      description:
        "Request headers passed on to this server as the client sent them (lower case), e.g. the simulator's timing and failure-injection headers.",
    },
  },
} as const

export const modelSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'model_type', 'backend'],
  properties: {
    id: { type: 'string', minLength: 1, description: 'Catalog identifier clients send as `model`.' },
    model_type: {
      type: 'string',
      enum: ['chat', 'embedding', 'image', 'audio_speech', 'audio_transcription', 'video', 'rerank'],
      description: "The spec's six types, and `rerank` (Sluice's extension: cross-encoder rerankers, POST /v1/rerank).",
    },
    backend: { type: 'string', description: 'Name of an entry of `backends`.' },
    served_name: { type: 'string', description: 'Name the model server knows the model by (defaults to id).' },
    reported_name: {
      type: 'string',
      description: "The model server's own name as it reports it in `model` (defaults to served_name).",
    },
    enabled: { type: 'boolean', default: true, description: 'Off: requests get 403 "model is disabled".' },
    fallbacks: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      uniqueItems: true,
      maxItems: 8,
      description:
        'Catalog ids of models of the same model_type that answer, in this order, when every replica of this one fails before anything reached the client (unreachable, timed out, a 5xx or a 429). Only this list is tried, not the fallbacks of its models (docs/operator-guide.md, "Fallbacks").',
    },
    context_window: { type: 'integer', minimum: 1, default: 8192 },
    limits: requestLimitsSchema,
    supports_function_calling: { type: 'boolean', default: false },
    supports_response_schema: { type: 'boolean', default: false },
    supports_vision: { type: 'boolean', default: false },
    supports_tool_choice: { type: 'boolean', default: false },
    supports_completions: {
      type: 'boolean',
      default: false,
      description: 'Serves POST /v1/completions (prompt in, text out).',
    },
    dimensions: {
      type: 'integer',
      minimum: 1,
      description: 'Embedding models: the length of the vectors the model returns.',
    },
    supports_dimensions: {
      type: 'boolean',
      default: false,
      description:
        "Embedding models: takes `dimensions` from 1 to `dimensions` (a Matryoshka model: the model server returns a shorter, renormalised vector). Without it, asking for other dimensions than the model's own gets 400.",
    },
    rerank_api: {
      type: 'string',
      enum: ['cohere', 'tei', 'vllm-score'],
      description:
        'Rerank models (default `cohere`): the API their server speaks. `cohere`: POST /v2/rerank with {query, documents} (Cohere, vLLM; Infinity and Jina at /v1/rerank, see rerank_path); `tei`: POST /rerank with {query, texts} (Text Embeddings Inference); `vllm-score`: POST /score with {text_1, text_2} (vLLM).',
    },
    rerank_path: {
      type: 'string',
      pattern: '^/',
      description:
        "Rerank models: the path below the backend's URL, when it is not the API's usual one (/v2/rerank, /rerank, /score).",
    },
    reasoning: {
      type: 'object',
      additionalProperties: false,
      required: ['mode'],
      default: { mode: 'unsupported' },
      properties: {
        mode: { type: 'string', enum: ['mapped', 'unsupported'] },
        default_level: level,
        levels: {
          type: 'object',
          additionalProperties: false,
          properties: { none: levelMapping, low: levelMapping, medium: levelMapping, high: levelMapping },
          description: 'The levels the model has, each with the request fields that select it upstream.',
        },
      },
    },
    boons: {
      type: 'object',
      default: {},
      description: 'Add-ons the gateway gives the model, by name.',
      additionalProperties: false,
      properties: {
        vision: boon,
        web_search: boon,
        image_generation: boon,
        speculation: speculationBoon,
      },
    },
    status: { type: 'string', enum: ['deprecated'], description: 'Present while the model is being retired.' },
    replacement: { type: 'string' },
    retire_at: {
      type: 'string',
      format: 'date-time',
      description: 'When the model retires (ISO 8601); the `sunset` header.',
    },
    deprecated_at: {
      type: 'string',
      format: 'date-time',
      description: 'When the retirement was announced; the `deprecation` header (defaults to retire_at).',
    },
    note: { type: 'string' },
    on_retired: {
      type: 'string',
      enum: ['refuse', 'replace'],
      default: 'refuse',
      description: 'After retire_at: refuse with 410, or let the replacement answer.',
    },
    tokens_per_image: {
      type: 'integer',
      minimum: 0,
      default: 1024,
      description:
        'Prompt tokens counted for each image part when a request is estimated before it runs (budgets, the fair queue); models differ, so set it to what this one uses.',
    },
    prices: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description:
        'Indicative value (no charge is made): per million tokens, per million characters (speech input), per minute of audio (transcription).',
      properties: {
        prompt: { type: 'number', minimum: 0, default: 0, description: 'Per million input tokens.' },
        completion: { type: 'number', minimum: 0, default: 0, description: 'Per million output tokens.' },
        characters: {
          type: 'number',
          minimum: 0,
          default: 0,
          description: 'Per million input characters (speech models).',
        },
        audio_minute: {
          type: 'number',
          minimum: 0,
          default: 0,
          description: 'Per minute of audio (transcription models).',
        },
      },
    },
    audio: audioSettingsSchema,
    cache: modelCacheSchema,
  },
} as const

export const familySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'default_level', 'members'],
  properties: {
    id: { type: 'string', minLength: 1 },
    default_level: level,
    members: {
      type: 'object',
      additionalProperties: false,
      required: ['none', 'low', 'medium', 'high'],
      properties: {
        none: { type: 'string' },
        low: { type: 'string' },
        medium: { type: 'string' },
        high: { type: 'string' },
      },
    },
  },
} as const

export const modelsFileSchema = {
  $id: 'sluice:models',
  type: 'object',
  additionalProperties: false,
  required: ['default_model', 'backends', 'models'],
  properties: {
    default_model: {
      type: 'string',
      description: "The deployment's default instruction-tuned model (text and images).",
    },
    backends: { type: 'object', additionalProperties: backendSchema },
    models: { type: 'array', items: modelSchema },
    families: { type: 'array', items: familySchema, default: [] },
  },
} as const

export type ModelsFile = FromSchema<typeof modelsFileSchema>
export type ModelConfig = ModelsFile['models'][number]
export type FamilyConfig = NonNullable<ModelsFile['families']>[number]
export type BackendConfig = ModelsFile['backends'][string]
export type ReasoningLevel = 'none' | 'low' | 'medium' | 'high'
