/**
 * The prompt's parts counted for `usage_metric`'s breakdown: by the model server's tokenizer
 * through the `tokenize-internal` route (vLLM's /tokenize; no model runs, nothing is charged),
 * else by the local cl100k_base tokenizer. The counts only apportion the server's reported
 * total (protocols/query/usage-metric.ts), so a different tokenizer shifts the split a little,
 * never the totals.
 */
import type { Principal } from '../../kernel/contract/index.js'
import { countTokens } from '../../domains/query/knowledge/tokens.js'
import type { InputBreakdown, InputPart } from '../../protocols/query/usage-metric.js'
import { replyBody, type RouteCall } from './answer.js'

export function countLocally(parts: Record<InputPart, string>): Partial<InputBreakdown> {
  return Object.fromEntries(Object.entries(parts).map(([p, text]) => [p, text ? countTokens(text) : 0]))
}

export async function countParts(
  call: RouteCall,
  route: string,
  model: string,
  parts: Record<InputPart, string>,
  options: { principal: Principal; signal: AbortSignal; parentId: string },
): Promise<{ counts: Partial<InputBreakdown>; method: 'tokenizer' | 'local' }> {
  try {
    const { reply } = await call(route, { model, texts: parts }, options)
    const body = replyBody(reply) as { counts?: Partial<InputBreakdown>; method?: 'tokenizer' | 'local' } | undefined
    if (reply.status === 200 && body?.counts) return { counts: body.counts, method: body.method ?? 'tokenizer' }
  } catch (err) {
    if (options.signal.aborted) throw err
  }
  return { counts: countLocally(parts), method: 'local' }
}
