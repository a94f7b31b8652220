import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    transcribe_route: {
      type: 'string',
      minLength: 1,
      default: 'audio-transcriptions-internal',
      description:
        "The gateway route that transcribes (kernel.call, under the project's key): the JSON twin of POST /v1/audio/transcriptions.",
    },
    translate_route: {
      type: 'string',
      minLength: 1,
      default: 'audio-translations-internal',
      description: 'The gateway route that translates into English: the JSON twin of POST /v1/audio/translations.',
    },
    max_file_bytes: {
      type: 'integer',
      minimum: 1,
      default: 47185920,
      description: "Largest decoded audio (45 MiB: its base64 fits the route's 64 MiB body); beyond it 413.",
    },
  },
} as const

export type QueryAudioConfig = FromSchema<typeof configSchema>
