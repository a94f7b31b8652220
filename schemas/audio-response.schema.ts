/**
 * The audio routes' answers: speech events (POST /v1/audio/speech with `stream_format: sse`;
 * the audio itself is bytes, described by content type), the voices of a speech model, and
 * transcripts (POST /v1/audio/transcriptions and /translations: JSON for `json` and
 * `verbose_json`, text for `text`, `srt` and `vtt`; plugins/transcription/subtitle-render.ts).
 */
import type { FromSchema } from 'json-schema-to-ts'

/** The audio formats of speech, by content type (plugins/speech/pcm-encoders.ts). */
export const SPEECH_CONTENT_TYPES = ['audio/mpeg', 'audio/ogg', 'audio/flac', 'audio/wav', 'audio/pcm'] as const

export const speechEventSchema = {
  description:
    'A speech event: `speech.audio.delta` with base64 audio (pcm, or wav with its header first), then `speech.audio.done` with the usage; no `[DONE]`.',
  oneOf: [
    {
      type: 'object',
      required: ['type', 'audio'],
      properties: { type: { const: 'speech.audio.delta' }, audio: { type: 'string', contentEncoding: 'base64' } },
    },
    {
      type: 'object',
      required: ['type', 'usage'],
      properties: {
        type: { const: 'speech.audio.done' },
        usage: {
          type: 'object',
          required: ['input_tokens', 'output_tokens', 'total_tokens'],
          properties: {
            input_tokens: { type: 'integer', minimum: 0 },
            output_tokens: { type: 'integer', minimum: 0 },
            total_tokens: { type: 'integer', minimum: 0 },
          },
        },
      },
    },
    {
      type: 'object',
      required: ['error'],
      properties: { error: { type: 'object', required: ['message'] } },
    },
  ],
} as const

export const voiceListSchema = {
  description: "The model's own voices (the standard names it maps are accepted by /audio/speech but not listed).",
  type: 'object',
  additionalProperties: false,
  required: ['voices', 'uploaded_voices'],
  properties: {
    voices: { type: 'array', items: { type: 'string' } },
    uploaded_voices: { type: 'array', items: { type: 'string' }, description: 'Always empty: no upload route.' },
  },
} as const

export const transcriptSchema = {
  description:
    '`json`: `{text, usage?}`; `verbose_json` adds `task`, `language` (a name), `duration` (seconds), `segments` and `words`.',
  type: 'object',
  required: ['text'],
  properties: {
    text: { type: 'string' },
    task: { enum: ['transcribe', 'translate'] },
    language: { type: 'string' },
    duration: { type: 'number', minimum: 0 },
    segments: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'start', 'end', 'text'],
        properties: {
          id: { type: 'integer' },
          start: { type: 'number' },
          end: { type: 'number' },
          text: { type: 'string' },
        },
      },
    },
    words: { type: 'array' },
    usage: {},
  },
} as const

export type VoiceList = FromSchema<typeof voiceListSchema>
