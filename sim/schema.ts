/**
 * `config/simulator.yaml`: what the model-server simulator serves and how it behaves.
 * One entry per simulated model; latency (scaled per model by `latency_factor`), capacity and
 * failure settings are global, and each
 * model behaves as its own vLLM server (its own waiting line, prefix cache and metrics).
 */
import type { FromSchema } from 'json-schema-to-ts'
import { simAudioSchema } from './audio-schema.js'
import { simImageSchema } from './image-schema.js'

/** The failure types of llm-d-inference-sim, plus the two stream faults the gateway must survive. */
export const failureTypes = [
  'rate_limit',
  'invalid_api_key',
  'context_length',
  'server_error',
  'invalid_request',
  'model_not_found',
  'cut_stream',
  'stall',
] as const

export const simModelSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: {
      type: 'string',
      minLength: 1,
      description: 'Name the model is served as; it is also what replies report in `model`.',
    },
    kind: {
      type: 'string',
      enum: ['chat', 'embedding', 'speech', 'transcription', 'rerank', 'image'],
      default: 'chat',
      description:
        'What the model does: chat, embeddings, speech (POST /v1/audio/speech), transcription (POST /v1/audio/transcriptions and translations), reranking (POST /v1/rerank, /v2/rerank, /rerank, /score) or image generation (POST /v1/images/generations).',
    },
    reasoning: {
      type: 'string',
      enum: ['none', 'thinking'],
      default: 'none',
      description: '`thinking` models emit reasoning before their answer, like vLLM started with --reasoning-parser.',
    },
    reasoning_field: {
      type: 'string',
      enum: ['reasoning', 'reasoning_content'],
      default: 'reasoning',
      description:
        'Field the reasoning is sent in: `reasoning` (vLLM ≥ 0.11.2) or `reasoning_content` (older vLLM, SGLang, llama.cpp).',
    },
    thinking_default: {
      type: 'boolean',
      default: true,
      description:
        'Whether a thinking model thinks when the request says nothing about it (Qwen3: on; set false for servers started with enable_thinking off).',
    },
    completions: {
      type: 'boolean',
      default: false,
      description: 'Serves the legacy POST /v1/completions (prompt in, text out).',
    },
    max_model_len: {
      type: 'integer',
      minimum: 16,
      default: 8192,
      description: 'Context length: prompt plus output tokens.',
    },
    latency_factor: {
      type: 'number',
      minimum: 0,
      default: 1,
      description:
        'How slow this model is against the global `latency` (its ttft_ms and itl_ms are multiplied by it): below 1 a small fast model, above 1 a large slow one. At zero global latency it changes nothing.',
    },
    embedding_dims: {
      type: 'integer',
      minimum: 1,
      maximum: 8192,
      default: 384,
      description: 'Length of the vectors of an embedding model.',
    },
    matryoshka: {
      type: 'boolean',
      default: false,
      description:
        "An embedding model that takes `dimensions` (a shorter, renormalised vector); without it, `dimensions` gets vLLM's 400.",
    },
    audio: simAudioSchema,
    image: simImageSchema,
  },
} as const

export const simConfigSchema = {
  $id: 'sluice:simulator',
  type: 'object',
  additionalProperties: false,
  required: ['models'],
  properties: {
    models: { type: 'array', minItems: 1, items: simModelSchema, description: 'The simulated models.' },
    latency: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description: 'Timing of generation. Both at 0: no timers at all (what benchmarks use).',
      properties: {
        ttft_ms: {
          type: 'number',
          minimum: 0,
          default: 0,
          description: 'Time to first token, after the request got a running slot.',
        },
        itl_ms: {
          type: 'number',
          minimum: 0,
          default: 0,
          description: 'Inter-token latency: time between two output tokens.',
        },
        prefill_ms_per_token: {
          type: 'number',
          minimum: 0,
          default: 0,
          description:
            "Prefill time of each prompt token not found in the prefix cache, added to the time to first token (llm-d-inference-sim's prefill-time-per-token): cached prefixes answer sooner.",
        },
        jitter: {
          type: 'number',
          minimum: 0,
          maximum: 0.3,
          default: 0,
          description:
            'Standard deviation of each sampled latency as a fraction of its base (llm-d caps it at 30%); samples stay within ±70% of the base.',
        },
      },
    },
    max_running: {
      type: 'integer',
      minimum: 1,
      default: 8,
      description: 'Requests one model generates at once (vLLM --max-num-seqs); the rest wait in line.',
    },
    max_waiting: {
      type: 'integer',
      minimum: 0,
      default: 1000,
      description: 'Length of the waiting line; beyond it requests get 429 "Failed to enqueue request".',
    },
    kv_cache_blocks: {
      type: 'integer',
      minimum: 1,
      default: 4096,
      description:
        'KV-cache size in blocks of 16 tokens: bounds the prefix cache (least recently used blocks go first) and is the denominator of vllm:kv_cache_usage_perc.',
    },
    failure: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description: 'Random failure injection, like llm-d-inference-sim (headers force failures per request).',
      properties: {
        rate: {
          type: 'number',
          minimum: 0,
          maximum: 100,
          default: 0,
          description: 'Percentage of inference requests that fail.',
        },
        types: {
          type: 'array',
          items: { type: 'string', enum: failureTypes },
          default: [
            'rate_limit',
            'invalid_api_key',
            'context_length',
            'server_error',
            'invalid_request',
            'model_not_found',
          ],
          description:
            'Failures to pick from, evenly. `cut_stream` cuts a reply mid-way; `stall` delays the first token by `stall_ms`.',
        },
        cut_after_chunks: {
          type: 'integer',
          minimum: 0,
          default: 3,
          description: 'For `cut_stream`: token chunks sent before the connection is destroyed.',
        },
        stall_ms: {
          type: 'integer',
          minimum: 0,
          default: 30000,
          description: 'For `stall`: extra wait before the first token.',
        },
      },
    },
    seed: {
      type: 'integer',
      default: 42,
      description: 'Seed of everything random: replies, logprobs, jitter and failure draws.',
    },
  },
} as const

/** The configuration once validated, defaults filled in. */
export type SimConfig = FromSchema<typeof simConfigSchema>
/** What a caller may pass: anything with a default may be left out. */
export type SimConfigInput = FromSchema<typeof simConfigSchema, { keepDefaultedPropertiesOptional: true }>
export type SimModelConfig = SimConfig['models'][number]
export type FailureType = (typeof failureTypes)[number]
