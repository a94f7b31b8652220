import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    file_field: {
      type: 'string',
      minLength: 1,
      default: 'file',
      description: 'The form field that carries the upload.',
    },
    file_fields: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { type: 'string', minLength: 1 },
      description:
        'Several file fields, each repeatable (the chat upload: images, docs, audios): every file of them goes to `ex.state.upload.files` in order, and at least one is required. Set: file_field is not read.',
    },
    max_file_bytes: {
      type: 'integer',
      minimum: 1,
      default: 67108864,
      description: 'Largest upload (64 MiB); larger → 413 "request body too large".',
    },
    form_allowance_bytes: {
      type: 'integer',
      minimum: 0,
      default: 1048576,
      description:
        'Room for the other fields and the part headers: the body is read up to max_file_bytes plus this, and refused beyond it without reading the rest.',
    },
    max_fields: {
      type: 'integer',
      minimum: 0,
      default: 100,
      description: 'Text fields in the form at most (a repeated name counts each time); more → 413.',
    },
    max_field_bytes: {
      type: 'integer',
      minimum: 0,
      default: 65536,
      description: "Bytes of one text field's value at most (64 KiB); longer → 413.",
    },
    max_files: {
      type: 'integer',
      minimum: 1,
      default: 4,
      description: 'File parts at most, of any name (only file_field is read; others are skipped); more → 413.',
    },
    max_parts: { type: 'integer', minimum: 1, default: 128, description: 'Parts of any kind at most; more → 413.' },
  },
} as const

export type MultipartUploadConfig = FromSchema<typeof configSchema>
