/**
 * `model: auto`: picks a chat model for a request from what the request needs and how busy
 * each model is, skipping models that cannot handle it. Shared by the `model` plugin (chat)
 * and by plugins that choose a model themselves (verdicts).
 */
import { GatewayError, type Catalog, type Kernel } from '../../kernel/contract/index.js'
import type { ModelConfig } from '../../schemas/models.schema.js'

/** Whether chat messages carry an image part (what `auto` and the capability check ask). */
export function hasImageParts(messages: unknown): boolean {
  return (
    Array.isArray(messages) &&
    messages.some(
      (m: { content?: unknown }) =>
        Array.isArray(m?.content) && m.content.some((p: { type?: unknown }) => p?.type === 'image_url'),
    )
  )
}

export interface AutoNeeds {
  images?: boolean
  tools?: boolean
  toolChoice?: boolean
  /** A json_schema response format: models that enforce schemas come first. */
  schema?: boolean
  /** The caller's group and key, whose permitted models bound the choice. */
  group?: string
  keyId?: string
}

/** How busy a model is; lower is chosen first. */
export type LoadOf = (modelId: string) => number

/**
 * The load of each model from one look at the fair queues: the requests running and waiting on
 * its backend pool, over the pool's capacity (0 idle, 1 every slot taken, above 1 a line).
 * Capacity is per pool, so models sharing a pool share its load, and a model on a saturated
 * pool loses to one on an idle pool. The queues report what this process sees (with Redis,
 * other replicas' requests are not counted): a hint for choosing, not an admission rule.
 */
export function queueLoadOf(kernel: Pick<Kernel, 'catalog' | 'config' | 'load'>): LoadOf {
  const busy = new Map<string, number>()
  for (const l of kernel.load.pools()) busy.set(l.pool, (busy.get(l.pool) ?? 0) + l.running + l.waiting)
  return (modelId) => {
    const pool = kernel.catalog.model(modelId)?.backend
    if (pool === undefined) return 0
    // The capacity the fair queue keeps the pool to (models.yaml `backends.<name>.capacity`).
    const capacity = kernel.config.models.backends[pool]?.capacity ?? 8
    return (busy.get(pool) ?? 0) / Math.max(1, capacity)
  }
}

function usable(m: ModelConfig, now: number): boolean {
  if (m.model_type !== 'chat' || m.enabled === false) return false
  if (m.status === 'deprecated') return false
  return !(m.retire_at && Date.parse(m.retire_at) <= now)
}

export function chooseAutoModel(
  catalog: Catalog,
  needs: AutoNeeds,
  now: number,
  loadOf: LoadOf = () => 0,
): ModelConfig {
  const caller = needs.group === undefined ? undefined : { group: needs.group, keyId: needs.keyId }
  const candidates = catalog.models().filter((m) => {
    if (!usable(m, now)) return false
    if (!catalog.permits(caller, [m.id])) return false
    if (needs.images && !m.supports_vision) return false
    if (needs.tools && !m.supports_function_calling) return false
    if (needs.toolChoice && !m.supports_tool_choice) return false
    return true
  })
  if (candidates.length === 0) throw new GatewayError(503, 'no model is available to satisfy the auto request')
  // Least busy first (spec rule 1: by content and load); among equals, schema-enforcing models
  // for structured output, then the order of models.yaml (the operator's preference).
  let best = candidates[0]!
  let bestKey = [loadOf(best.id), needs.schema && !best.supports_response_schema ? 1 : 0]
  for (const m of candidates.slice(1)) {
    const key = [loadOf(m.id), needs.schema && !m.supports_response_schema ? 1 : 0]
    if (key[0]! < bestKey[0]! || (key[0] === bestKey[0] && key[1]! < bestKey[1]!)) {
      best = m
      bestKey = key
    }
  }
  return best
}
