import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    route: {
      type: 'string',
      minLength: 1,
      default: 'rerank',
      description:
        "The gateway route that reranks (kernel.call under the project's key): budgeted, queued and recorded there.",
    },
  },
} as const

export type QueryRerankConfig = FromSchema<typeof configSchema>
