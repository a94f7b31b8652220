/**
 * The SearXNG adapter: `GET {url}/search?q=...&format=json` (SearXNG's JSON API; the instance
 * must list `json` in `search.formats`). The query is the only text that leaves the gateway.
 * An unreachable or failing provider is a 502, a slow one a 504, both without the query.
 */
import { GatewayError } from '../../../kernel/contract/index.js'
import type { WebSearchProvider, WebSearchResult } from './results.js'

export interface SearxngSettings {
  readonly url: string
  readonly timeoutMs: number
}

interface SearxngResult {
  title?: unknown
  url?: unknown
  content?: unknown
  score?: unknown
}

export function searxngProvider(settings: SearxngSettings): WebSearchProvider {
  const base = settings.url.replace(/\/+$/, '')
  return {
    name: 'searxng',
    // The instance's address is the operator's business, not the client's or the model's.
    description: 'web search results from a SearXNG instance',
    async search(query, maxResults, caller) {
      const url = `${base}/search?${new URLSearchParams({ q: query, format: 'json' })}`
      const signal = caller.signal
        ? AbortSignal.any([caller.signal, AbortSignal.timeout(settings.timeoutMs)])
        : AbortSignal.timeout(settings.timeoutMs)
      let body: unknown
      try {
        const res = await fetch(url, { headers: { accept: 'application/json' }, signal })
        if (!res.ok)
          throw new GatewayError(502, `the web search provider answered ${res.status}`, { code: 'upstream_failed' })
        body = await res.json()
      } catch (err) {
        if (err instanceof GatewayError) throw err
        if ((err as Error).name === 'TimeoutError')
          throw new GatewayError(504, `the web search provider did not answer within ${settings.timeoutMs} ms`, {
            code: 'upstream_timeout',
          })
        if (caller.signal?.aborted) throw err
        throw new GatewayError(502, 'the web search provider could not be reached or sent malformed JSON', {
          code: 'upstream_failed',
          cause: err,
        })
      }
      const results = (body as { results?: unknown } | null)?.results
      if (!Array.isArray(results))
        throw new GatewayError(502, 'the web search provider sent no results list', { code: 'upstream_failed' })
      return (results as SearxngResult[])
        .filter((r) => typeof r?.url === 'string')
        .slice(0, maxResults)
        .map(
          (r, i): WebSearchResult => ({
            title: typeof r.title === 'string' ? r.title : '',
            url: r.url as string,
            content: typeof r.content === 'string' ? r.content : '',
            // SearXNG's score is unbounded; without one, the rank order stands in.
            score: typeof r.score === 'number' && Number.isFinite(r.score) ? r.score : 1 / (i + 1),
          }),
        )
    },
  }
}
