/**
 * web-search: POST /v1/web_search, query in, results out, through the deployment's provider
 * (server.yaml `web_search`: a SearXNG-compatible API, or the local knowledge-base provider that
 * says it is not the web). The web_search boon runs its searches through this step too (route
 * `web-search-internal`), so every search is recorded under the caller's key the same way:
 * that a search happened and with which provider, never its words.
 */
import { GatewayError, definePlugin, reply } from '../../kernel/contract/index.js'
import { outcomeOf } from '../../kernel/contract/index.js'
import { webSearchSettings } from '../../domains/query/web-search/provider.js'
import { recordSearch } from '../../domains/query/web-search/search-record.js'
import { webSearchRequestSchema } from '../../schemas/web-search-request.schema.js'
import type { WebSearchResponse } from '../../schemas/web-search-response.schema.js'
import { configSchema } from './schema.js'

export default definePlugin({
  name: 'web-search',
  config: configSchema,
  requires: ['principal'],
  body: webSearchRequestSchema,
  setup(_config, kernel) {
    const settings = webSearchSettings(kernel)
    return {
      async request(ex, next) {
        const body = ex.body
        if (body.query.trim() === '')
          throw new GatewayError(400, 'invalid request: query is blank', { code: 'invalid_request' })
        const count = body.max_results ?? settings.defaultResults
        if (count > settings.maxResults)
          throw new GatewayError(400, `max_results ${count} is over this gateway's limit of ${settings.maxResults}`, {
            code: 'invalid_request',
          })
        const { provider } = settings
        try {
          const results = await provider.search(body.query.trim(), count, {
            principal: ex.principal,
            signal: ex.signal,
          })
          recordSearch(kernel, ex, provider.name, { kind: 'done', status: 200 })
          const answer: WebSearchResponse = {
            query: body.query,
            provider: provider.name,
            provider_description: provider.description,
            results,
          }
          ex.reply = reply.json(answer)
        } catch (err) {
          recordSearch(kernel, ex, provider.name, outcomeOf(ex, err))
          throw err
        }
        await next()
      },
    }
  },
})
