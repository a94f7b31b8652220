/**
 * The web search request (POST /v1/web_search), after the common search APIs (Tavily's and
 * Brave's `query` and `max_results`/`count`, SearXNG's `q`): a query and how many results.
 * Unknown fields are refused, so a client that expects a filter Sluice does not have learns it.
 */
import type { FromSchema } from 'json-schema-to-ts'

export const webSearchRequestSchema = {
  $id: 'sluice:web-search-request',
  type: 'object',
  additionalProperties: false,
  required: ['query'],
  properties: {
    query: {
      type: 'string',
      minLength: 1,
      maxLength: 2000,
      description: 'What to search for; the only text that may leave the gateway (provider searxng).',
    },
    max_results: {
      type: 'integer',
      minimum: 1,
      maximum: 50,
      description: 'Results wanted (default server.yaml web_search.default_results; at most its max_results).',
    },
  },
} as const

export type WebSearchRequest = FromSchema<typeof webSearchRequestSchema>
