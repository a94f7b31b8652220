/** The web search reply (POST /v1/web_search; plugins/web-search): the provider's results, best first. */
import type { FromSchema } from 'json-schema-to-ts'

export const webSearchResponseSchema = {
  description: "Results of the deployment's search provider, best first.",
  type: 'object',
  additionalProperties: false,
  required: ['query', 'provider', 'provider_description', 'results'],
  properties: {
    query: { type: 'string', description: 'As sent.' },
    provider: { type: 'string', description: '`searxng` or `local`.' },
    provider_description: { type: 'string', description: 'Where the results come from.' },
    results: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['title', 'url', 'content', 'score'],
        properties: {
          title: { type: 'string' },
          url: { type: 'string' },
          content: { type: 'string', description: 'A snippet.' },
          score: { type: 'number', description: 'Comparable only within one reply.' },
        },
      },
    },
  },
} as const

export type WebSearchResponse = FromSchema<typeof webSearchResponseSchema>
