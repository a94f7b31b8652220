/**
 * The web search provider of the deployment (server.yaml `web_search`), made once per plugin
 * setup: `searxng` (an outside engine: the query leaves the machine) or `local` (a knowledge-base
 * collection: nothing leaves). The endpoint and the boon share it, so they cannot disagree.
 */
import type { Kernel } from '../../../kernel/contract/index.js'
import { localProvider } from './local.js'
import { searxngProvider } from './searxng.js'
import type { WebSearchProvider } from './results.js'

export type { WebSearchProvider, WebSearchResult } from './results.js'

export interface WebSearchSettings {
  readonly provider: WebSearchProvider
  /** Results given when a request does not say (the boon's tool call, the endpoint's default). */
  readonly defaultResults: number
  /** The most results any request may ask for. */
  readonly maxResults: number
}

export function webSearchSettings(kernel: Kernel): WebSearchSettings {
  const s = kernel.config.server.web_search ?? {}
  const provider =
    s.provider === 'searxng'
      ? searxngProvider({ url: s.url ?? '', timeoutMs: s.timeout_ms ?? 10_000 })
      : localProvider(
          kernel.domains.query.knowledge,
          { project: s.local?.project ?? 'demo', collection: s.local?.collection ?? 'sample' },
          (message) => kernel.log.warn(message),
        )
  const maxResults = s.max_results ?? 10
  return { provider, maxResults, defaultResults: Math.min(maxResults, s.default_results ?? 5) }
}
