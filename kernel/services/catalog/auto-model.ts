/**
 * `model: auto`: picks a chat model for a request from what the request needs and how busy
 * each model is, skipping models that cannot handle it. Shared by the `model` plugin (chat)
 * and by plugins that choose a model themselves (verdicts).
 */
import type { Catalog } from '../../kernel.js'
import type { ModelConfig } from '../../../schemas/models.schema.js'
import { GatewayError } from '../../errors.js'

/** Whether chat messages carry an image part (what `auto` and the capability check ask). */
export function hasImageParts(messages: unknown): boolean {
  return Array.isArray(messages) && messages.some((m: { content?: unknown }) => Array.isArray(m?.content) && m.content.some((p: { type?: unknown }) => p?.type === 'image_url'))
}

export interface AutoNeeds {
  images?: boolean
  tools?: boolean
  toolChoice?: boolean
  /** A json_schema response format: models that enforce schemas come first. */
  schema?: boolean
  /** The caller's group, whose permitted models bound the choice. */
  group?: string
}

/** How busy a model is (requests running plus waiting); lower is chosen first. */
export type LoadOf = (modelId: string) => number

function usable(m: ModelConfig, now: number): boolean {
  if (m.model_type !== 'chat' || m.enabled === false) return false
  if (m.status === 'deprecated') return false
  return !(m.retire_at && Date.parse(m.retire_at) <= now)
}

export function chooseAutoModel(catalog: Catalog, needs: AutoNeeds, now: number, loadOf: LoadOf = () => 0): ModelConfig {
  const candidates = catalog.models().filter((m) => {
    if (!usable(m, now)) return false
    if (!catalog.permits(needs.group, [m.id])) return false
    if (needs.images && !m.supports_vision) return false
    if (needs.tools && !m.supports_function_calling) return false
    if (needs.toolChoice && !m.supports_tool_choice) return false
    return true
  })
  if (candidates.length === 0) throw new GatewayError(503, 'no model is available to satisfy the auto request')
  // Least busy first; among equals, schema-enforcing models for structured output, then the
  // order of models.yaml (the operator's preference).
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
