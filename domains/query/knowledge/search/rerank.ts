/**
 * Reranking of search results (spec rule 4): `rerank`, `reranker_model` and `reranker_provider`
 * are set together, else a 400 naming what is missing; `top_n` keeps the best after reranking.
 * The reranker is a catalog model reached through the `rerank` route with `kernel.call`, so it
 * is queued, metered and recorded like any model call. `reranker_provider` is the API the
 * model's server speaks (`cohere`, `tei` or `vllm-score`), checked against the catalog model's
 * `rerank_api` (default `cohere`): the catalog, not the request, decides where a call goes.
 */
import { GatewayError, type CallOptions, type CallResult, type Principal } from '../../../../kernel/contract/index.js'
import type { ModelConfig } from '../../../../schemas/models.schema.js'

export interface RerankParams {
  rerank?: boolean | 'true' | 'false'
  reranker_model?: string
  reranker_provider?: string
  top_n?: number
}

export interface RerankPlan {
  readonly model: string
  readonly topN?: number
}

const bad = (message: string) => new GatewayError(400, message, { code: 'invalid_request' })

export const truthy = (v: boolean | 'true' | 'false' | undefined): boolean => v === true || v === 'true'

/** The rerank to do, or none; a 400 when the three fields are not set together or do not fit the catalog. */
export function rerankPlan(p: RerankParams, modelOf: (id: string) => ModelConfig | undefined): RerankPlan | undefined {
  const set = (['reranker_model', 'reranker_provider', 'top_n'] as const).filter((f) => p[f] !== undefined)
  if (!truthy(p.rerank)) {
    if (set.length)
      throw bad(
        `rerank, reranker_model and reranker_provider must be set together: ${set.join(', ')} given but rerank is not true`,
      )
    return undefined
  }
  const missing = (['reranker_model', 'reranker_provider'] as const).filter((f) => p[f] === undefined)
  if (missing.length)
    throw bad(`rerank, reranker_model and reranker_provider must be set together: ${missing.join(' and ')} missing`)
  const model = modelOf(p.reranker_model!)
  if (!model || model.model_type !== 'rerank')
    throw bad(`reranker_model ${p.reranker_model} is not a rerank model of this gateway`)
  const api = model.rerank_api ?? 'cohere'
  if (p.reranker_provider !== api)
    throw bad(
      `reranker_provider ${p.reranker_provider} does not match reranker_model ${p.reranker_model}, whose server speaks ${api}`,
    )
  return { model: model.id, topN: p.top_n }
}

export type RouteCall = (routeId: string, body: unknown, options?: CallOptions) => Promise<CallResult>

/**
 * Reorders `items` by the reranker's scores of `textOf(item)`, best first, cut at top_n, each
 * with its `rerank_score`.
 */
export async function rerankItems<T extends object>(
  call: RouteCall,
  /** The rerank route it calls (server.yaml `query.routes.rerank`). */
  route: string,
  plan: RerankPlan,
  query: string,
  items: readonly T[],
  textOf: (item: T) => string,
  options: { principal: Principal; signal?: AbortSignal; parentId?: string },
): Promise<(T & { rerank_score: number })[]> {
  if (!items.length) return []
  const topN = plan.topN === undefined ? items.length : Math.min(plan.topN, items.length)
  const { reply } = await call(route, { model: plan.model, query, documents: items.map(textOf), top_n: topN }, options)
  const body = reply.kind === 'json' ? reply.body : undefined
  const results = (body as { results?: { index: number; relevance_score: number }[] } | undefined)?.results
  if (reply.status !== 200 || !Array.isArray(results)) {
    const message = (body as { error?: { message?: string } } | undefined)?.error?.message
    throw new GatewayError(502, `reranker ${plan.model} failed${message ? `: ${message}` : ''}`, {
      code: 'upstream_failed',
    })
  }
  return results
    .filter((r) => items[r.index] !== undefined)
    .map((r) => ({ ...items[r.index]!, rerank_score: r.relevance_score }))
}
