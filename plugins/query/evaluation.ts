// PLACEHOLDER (being built on branch query-evals).
import { GatewayError } from '../../kernel/errors.js'
import type { Principal } from '../../kernel/exchange.js'
import type { CallOptions, CallResult } from '../../kernel/kernel.js'
import type { ModelConfig } from '../../schemas/models.schema.js'

export async function evaluate(
  _call: (routeId: string, body: unknown, options?: CallOptions) => Promise<CallResult>,
  o: { principal: Principal; signal?: AbortSignal; parentId?: string; flags: { context_utilization?: boolean; prompt_guard?: boolean }; judgeModel: string; guardModel: string; query: string; answer: string; contexts: readonly string[]; modelOf(id: string): ModelConfig | undefined },
): Promise<{ results: Record<string, unknown>; usage: { inputTokens: number; outputTokens: number; cost: number } } | undefined> {
  if (o.flags.context_utilization || o.flags.prompt_guard) throw new GatewayError(501, 'eval_params are not available yet')
  return undefined
}
