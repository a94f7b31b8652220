import type { FromSchema } from 'json-schema-to-ts'

/**
 * No options: the provider and its bounds are the deployment's (server.yaml `web_search`), so
 * the endpoint and the web_search boon search the same way.
 */
export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {},
} as const

export type WebSearchConfig = FromSchema<typeof configSchema>
