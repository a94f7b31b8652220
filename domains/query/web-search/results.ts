/**
 * The web search's one vocabulary, shared by the endpoint (POST /v1/web_search) and the
 * web_search boon: a provider takes a query and returns results shaped like the common search
 * APIs (Tavily, Brave, SearXNG): title, url, content (a snippet), score.
 */
import type { Principal } from '../../../kernel/contract/index.js'

export interface WebSearchResult {
  title: string
  url: string
  content: string
  /** Higher is more relevant; comparable only within one answer. */
  score: number
}

/** Who searches, for a provider whose search itself costs model calls (none does today). */
export interface SearchCaller {
  readonly principal: Principal
  readonly signal?: AbortSignal
}

export interface WebSearchProvider {
  /** `searxng` or `local`: what the endpoint's `provider` field and the usage record say. */
  readonly name: string
  /** One line for the model and the client: where the results come from (the local provider says it is not the web). */
  readonly description: string
  search(query: string, maxResults: number, caller: SearchCaller): Promise<WebSearchResult[]>
}
