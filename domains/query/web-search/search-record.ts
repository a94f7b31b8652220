/**
 * The usage record of one search: under the caller's key, with the route that ran it
 * (`web-search` for the endpoint, `web-search-internal` for the boon), `model` naming the
 * provider (`web_search:searxng`, `web_search:local`) and no tokens. The record says that a
 * search happened, never what was searched.
 */
import type { Exchange, Kernel, Outcome } from '../../../kernel/contract/index.js'

/** `outcome`: the kernel's own (`outcomeOf` for an error), so a search ends as any request does. */
export function recordSearch(kernel: Kernel, ex: Exchange, provider: string, outcome: Outcome): void {
  kernel.records.add({
    at: ex.startedAt,
    requestId: ex.id,
    keyId: ex.principal?.keyId ?? '',
    group: ex.principal?.group ?? '',
    route: ex.route.id,
    modelRequested: 'web_search',
    model: `web_search:${provider}`,
    upstreamModel: null,
    promptTokens: 0,
    completionTokens: 0,
    cachedTokens: 0,
    audioSeconds: 0,
    characters: 0,
    usageSource: 'none',
    value: 0,
    status: outcome.status,
    outcome: outcome.kind,
    queueMs: null,
    ttftMs: null,
    totalMs: Math.max(0, kernel.now() - ex.startedAt),
    parentRequestId: ex.parentId ?? null,
    charged: 0,
    cached: false,
    fallbackFrom: null,
  })
}
