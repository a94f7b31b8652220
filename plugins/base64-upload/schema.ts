import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    max_file_bytes: {
      type: 'integer',
      minimum: 1,
      default: 67108864,
      description: 'Largest decoded file (bytes); beyond it 413, as multipart-upload answers.',
    },
    task: {
      type: 'string',
      enum: ['transcribe', 'translate'],
      default: 'transcribe',
      description: "The route's task (as its transcription step's): a body whose `task` differs is refused with 400 instead of silently doing the other.",
    },
  },
} as const

export type Base64UploadConfig = FromSchema<typeof configSchema>
