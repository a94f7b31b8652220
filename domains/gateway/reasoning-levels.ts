/**
 * Chooses the level a model serves for a requested one, and merges the model's declared
 * request fields for that level into the upstream body. Nothing here knows a vendor: the
 * fields come from models.yaml. Shared by the `reasoning` plugin, which shapes the request for
 * the model chosen, and the `backend` plugin, which shapes it anew for a fallback model.
 */
import { LEVELS, nearestLevel } from '../../protocols/openai/reasoning-effort.js'
import type { ModelConfig, ReasoningLevel } from '../../schemas/models.schema.js'

export type ServedLevel = ReasoningLevel | 'unsupported'

export interface LevelChoice {
  served: ServedLevel
  /** Fields to merge into the request for that level. */
  fields: Record<string, unknown>
}

/** A model's levels, worked out once per loaded model (a config reload makes new model objects). */
const levelsByModel = new WeakMap<ModelConfig, readonly ReasoningLevel[]>()
const NONE: readonly ReasoningLevel[] = []

export function levelsOf(model: ModelConfig): readonly ReasoningLevel[] {
  if (model.reasoning?.mode !== 'mapped') return NONE
  let levels = levelsByModel.get(model)
  if (!levels) levelsByModel.set(model, (levels = LEVELS.filter((l) => model.reasoning?.levels?.[l] !== undefined)))
  return levels
}

export function chooseLevel(model: ModelConfig, wanted: ReasoningLevel | undefined): LevelChoice {
  const levels = levelsOf(model)
  if (levels.length === 0) return { served: 'unsupported', fields: {} }
  const target = wanted ?? model.reasoning?.default_level ?? levels[0]!
  const served = levels.includes(target) ? target : nearestLevel(target, levels)
  return { served, fields: (model.reasoning?.levels?.[served] ?? {}) as Record<string, unknown> }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * What `fields` will replace in `body`: the values its top-level keys had before the merge
 * (undefined for a key the body lacked), so that a request shaped for one model can be shaped
 * for another (`unmerge`). Merging replaces merged objects, never changes them in place, so
 * these values stay as they were.
 */
export function priorValues(body: Record<string, unknown>, fields: Record<string, unknown>): Record<string, unknown> {
  const prior: Record<string, unknown> = {}
  for (const k of Object.keys(fields)) prior[k] = body[k]
  return prior
}

/** Puts back what a merge replaced (`priorValues` taken before it). */
export function unmerge(body: Record<string, unknown>, prior: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(prior)) {
    if (v === undefined) delete body[k]
    else body[k] = v
  }
}

/** Deep-merges `fields` into `body` (objects merge, anything else is replaced). */
export function mergeFields(body: Record<string, unknown>, fields: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(fields)) {
    const current = body[k]
    if (isPlainObject(current) && isPlainObject(v)) {
      const merged = { ...current }
      mergeFields(merged, v)
      body[k] = merged
    } else {
      body[k] = isPlainObject(v) ? structuredClone(v) : v
    }
  }
}
