import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    transcription_model: {
      type: 'string',
      minLength: 1,
      description:
        "Catalog model that transcribes uploaded audio. Unset: the catalog's first enabled audio_transcription model (sim-whisper in the embedded default).",
    },
    transcription_route: {
      type: 'string',
      minLength: 1,
      default: 'audio-transcriptions-internal',
      description:
        "The internal route that transcribes (body audio-file-request), run with kernel.call under the project's principal.",
    },
  },
} as const

export type QueryUploadConfig = FromSchema<typeof configSchema>
