import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['action'],
  properties: {
    action: {
      type: 'string',
      enum: ['put', 'upload', 'list', 'delete'],
      default: 'list',
      description:
        '`put`: add or replace `:source_name` from a JSON body; `upload`: add or replace from a multipart form (after `multipart-upload`); `list` the documents; `delete` `:source_name`.',
    },
  },
} as const

export type KnowledgeDocumentsConfig = FromSchema<typeof configSchema>

/** Limits on what a document carries beside its content. */
export const LIMITS = {
  tags: 100,
  tagLength: 256,
  metadataKeys: 64,
  metadataValueLength: 4096,
  urlLength: 4096,
} as const

const tags = {
  type: 'array',
  maxItems: LIMITS.tags,
  items: { type: 'string', minLength: 1, maxLength: LIMITS.tagLength },
} as const
const metadata = {
  type: 'object',
  maxProperties: LIMITS.metadataKeys,
  // Keys are identifiers, as the filter language names them (`metadata["key"]`, `key`).
  propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' },
  additionalProperties: { type: ['string', 'number', 'boolean', 'null'], maxLength: LIMITS.metadataValueLength },
} as const
const url = { type: 'string', minLength: 1, maxLength: LIMITS.urlLength } as const

/** The fields of a document besides its content: the JSON body's and the form's. */
export const documentFields = {
  type: 'object',
  additionalProperties: false,
  properties: { url, tags, metadata },
} as const

/** PUT …/documents/:source_name+ */
export const putDocumentBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    text: { type: 'string', minLength: 1 },
    content_base64: { type: 'string', minLength: 1 },
    content_type: { type: 'string', minLength: 1, maxLength: 256 },
    url,
    tags,
    metadata,
  },
  oneOf: [{ required: ['text'] }, { required: ['content_base64'] }],
} as const
