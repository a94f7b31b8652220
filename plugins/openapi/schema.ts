import type { FromSchema } from 'json-schema-to-ts'

/** `all`: every HTTP pipeline merged; `pipeline`: the one named by the `:file` parameter (`<name>.json`); `page`: the HTML reference. */
export const configSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['view'],
  properties: {
    view: { enum: ['all', 'pipeline', 'page'] },
  },
} as const

export type OpenApiConfig = FromSchema<typeof configSchema>
