/**
 * The Query service's media body types (spec 001, rule 2: image, audio and speech over REST),
 * designed after the query request: the same envelope fields (`endpoint`, `project_id`,
 * `request_source`, `session_id`, `model_provider`, `model_name`), `query` for the text, and
 * each type's own few fields. The spec shows none of these bodies; docs/api-reference.md does.
 *
 * Unknown fields are refused (400 naming them), as for the query request. `model_provider` and
 * `model_name` are the "own parameters" of these bodies: a service token sends them only with
 * `request_source: "override_params"` (protocols/query/own-params.ts).
 */
import type { FromSchema } from 'json-schema-to-ts'
import { sessionIdSchema } from './query-request.schema.js'

const name = { type: 'string', minLength: 1, maxLength: 256 } as const

const envelope = {
  action: { type: 'string', maxLength: 64 },
  request_source: { type: 'string', maxLength: 64 },
  project_id: name,
  session_id: sessionIdSchema,
  model_provider: { type: 'string', minLength: 1, maxLength: 64 },
  model_name: name,
} as const

/** POST /query/v1/image: images from a prompt, through the gateway's images route. */
export const queryImageRequestSchema = {
  $id: 'sluice:query-image-request',
  type: 'object',
  required: ['query'],
  additionalProperties: false,
  properties: {
    endpoint: { const: 'image' },
    ...envelope,
    query: { type: 'string', minLength: 1, maxLength: 32000, description: 'The prompt: what to draw.' },
    size: {
      type: 'string',
      pattern: '^(auto|[1-9][0-9]{0,4}x[1-9][0-9]{0,4})$',
      description: "WIDTHxHEIGHT, or auto (the model's default); the model's server says which it serves.",
    },
    n: {
      type: 'integer',
      minimum: 1,
      maximum: 10,
      description: "How many images (default 1); the model's server may allow fewer.",
    },
  },
} as const

/** POST /query/v1/audio: a transcript (or an English translation) of base64 audio. */
export const queryAudioRequestSchema = {
  $id: 'sluice:query-audio-request',
  type: 'object',
  required: ['audio_file', 'task'],
  additionalProperties: false,
  properties: {
    endpoint: { const: 'audio' },
    ...envelope,
    audio_file: {
      type: 'string',
      minLength: 1,
      description: 'The audio, base64 (or a base64 data URL): wav, mp3, flac, ogg, webm, m4a.',
    },
    filename: {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      description: "The file's name; its extension tells the server the format (default audio.wav).",
    },
    task: {
      type: 'string',
      enum: ['transcribe', 'translate'],
      description: 'transcribe: text in the spoken language; translate: English text.',
    },
    language: {
      type: 'string',
      minLength: 2,
      maxLength: 32,
      description: 'The spoken language (ISO 639-1, e.g. de), when known.',
    },
    query: {
      type: 'string',
      maxLength: 4096,
      description: "Optional text that guides the transcript (Whisper's prompt: names, spelling).",
    },
  },
} as const

/** POST /query/v1/speech: spoken audio of a text, through the gateway's speech route. */
export const querySpeechRequestSchema = {
  $id: 'sluice:query-speech-request',
  type: 'object',
  required: ['query'],
  additionalProperties: false,
  properties: {
    endpoint: { const: 'speech' },
    ...envelope,
    query: { type: 'string', minLength: 1, maxLength: 20000, description: 'The text to speak.' },
    voice: {
      type: 'string',
      minLength: 1,
      maxLength: 64,
      description:
        "A voice of the model, or a standard name (alloy, nova …) the catalog maps; default the model's first.",
    },
    output_audio_format: {
      type: 'string',
      enum: ['pcm16', 'wav', 'mp3'],
      description: 'pcm16 (raw 16-bit little-endian mono), wav or mp3 (default).',
    },
    language: {
      type: 'string',
      minLength: 2,
      maxLength: 32,
      description: 'For multilingual models: the language to speak (e.g. english), or auto.',
    },
  },
} as const

export type QueryImageRequest = FromSchema<typeof queryImageRequestSchema>
export type QueryAudioRequest = FromSchema<typeof queryAudioRequestSchema>
export type QuerySpeechRequest = FromSchema<typeof querySpeechRequestSchema>
