import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['action'],
  properties: {
    action: {
      type: 'string',
      enum: ['summary', 'records'],
      default: 'summary',
      description:
        '`summary`: requests, tokens and indicative value per key, model or group over a period; `records`: the usage records themselves, newest first.',
    },
    max_records: {
      type: 'integer',
      minimum: 1,
      maximum: 100000,
      default: 1000,
      description: 'Most records one `records` call returns (`limit` asks for fewer).',
    },
  },
} as const

export type AdminUsageConfig = FromSchema<typeof configSchema>
