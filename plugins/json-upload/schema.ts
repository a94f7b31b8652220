import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    max_file_bytes: {
      type: 'integer',
      minimum: 1,
      default: 67108864,
      description: 'Largest decoded file (64 MiB, as the multipart route); larger → 413 "request body too large".',
    },
  },
} as const

export type JsonUploadConfig = FromSchema<typeof configSchema>
