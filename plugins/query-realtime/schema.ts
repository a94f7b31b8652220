import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    transcribe_route: {
      type: 'string',
      minLength: 1,
      default: 'audio-transcriptions-internal',
      description: "The route that transcribes the audio (kernel.call, under the project's key).",
    },
    speech_route: {
      type: 'string',
      minLength: 1,
      default: 'audio-speech',
      description: 'The route that speaks the answer (streamed as it is made).',
    },
    embeddings_route: {
      type: 'string',
      minLength: 1,
      default: 'embeddings',
      description: 'The route that embeds a question for the semantic cache.',
    },
    transcription_model: {
      type: 'string',
      minLength: 1,
      description: "The transcription model; default the catalog's first.",
    },
    speech_model: {
      type: 'string',
      minLength: 1,
      description: "The speech model; default the catalog's first (24 kHz for pcm16).",
    },
    embedding_model: {
      type: 'string',
      minLength: 1,
      description: "The semantic cache's embedding model; default the catalog's first.",
    },
    max_file_bytes: {
      type: 'integer',
      minimum: 1,
      default: 47185920,
      description: 'Largest decoded audio_file; beyond it 413.',
    },
    semantic_cache: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        threshold: {
          type: 'number',
          exclusiveMinimum: 0,
          maximum: 1,
          default: 0.95,
          description: 'Cosine similarity at or above which a question is answered from the cache.',
        },
        max_entries: {
          type: 'integer',
          minimum: 1,
          default: 1000,
          description: 'Answers kept at most (the oldest goes first).',
        },
        max_age_ms: {
          type: 'integer',
          minimum: 1,
          default: 3600000,
          description: 'How long an answer is kept (default an hour).',
        },
      },
    },
  },
} as const

export type QueryRealtimeConfig = FromSchema<typeof configSchema>
