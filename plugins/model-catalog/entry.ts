/** The model entry of the spec, rendered from the catalog's config. */
import type { FamilyConfig, ModelConfig } from '../../schemas/models.schema.js'
import { LEVELS } from '../../protocols/openai/reasoning-effort.js'
import { boonActs, type BoonName } from '../../domains/gateway/boons.js'

/** The spec's six values of `model_type`: a client may hold the list to them. */
export type EntryModelType = 'chat' | 'embedding' | 'image' | 'audio_speech' | 'audio_transcription' | 'video'

export interface ModelEntry {
  id: string
  object: 'model'
  created: number
  owned_by: string
  model_type: EntryModelType
  /** On rerank models only (POST /rerank): they are listed as `embedding`, the spec having no rerank type. */
  supports_rerank?: true
  context_window: number
  supports_function_calling: boolean
  supports_response_schema: boolean
  supports_vision: boolean
  supports_tool_choice: boolean
  reasoning: { mode: 'mapped' | 'unsupported'; levels?: string[]; default_level?: string }
  family?: { default_level: string; members: Record<string, string> }
  boons: string[]
  boon_details: { name: string; active: boolean; helper_model?: string }[]
  status?: 'deprecated'
  replacement?: string
  retire_at?: string
  note?: string
}

// Entries carry a fixed `created`: the catalog has no creation times, and a changing value
// would make clients think the list changed.
const CREATED = 1767225600

export function modelEntry(m: ModelConfig, ownedBy: string): ModelEntry {
  const levels =
    m.reasoning?.mode === 'mapped' ? LEVELS.filter((l) => m.reasoning?.levels?.[l] !== undefined) : undefined
  const entry: ModelEntry = {
    id: m.id,
    object: 'model',
    created: CREATED,
    owned_by: ownedBy,
    // A cross-encoder reranker is an encoder served by the embedding servers (TEI, Infinity,
    // vLLM's pooling runner): `embedding` with supports_rerank (docs/decisions.md).
    model_type: m.model_type === 'rerank' ? 'embedding' : m.model_type,
    ...(m.model_type === 'rerank' ? { supports_rerank: true } : {}),
    context_window: m.context_window ?? 8192,
    supports_function_calling: m.supports_function_calling ?? false,
    supports_response_schema: m.supports_response_schema ?? false,
    supports_vision: m.supports_vision ?? false,
    supports_tool_choice: m.supports_tool_choice ?? false,
    reasoning: levels
      ? { mode: 'mapped', levels, ...(m.reasoning?.default_level ? { default_level: m.reasoning.default_level } : {}) }
      : { mode: 'unsupported' },
    boons: Object.keys(m.boons ?? {}),
    // `active` says whether the boon acts: a configured boon that is not implemented yet, or
    // switched off, or lacking its helper, is listed but inactive.
    boon_details: Object.entries(m.boons ?? {}).map(([name, b]) => ({
      name,
      active: boonActs(m, name as BoonName),
      ...(b?.helper_model ? { helper_model: b.helper_model } : {}),
    })),
  }
  if (m.status === 'deprecated') {
    entry.status = 'deprecated'
    entry.replacement = m.replacement
    entry.retire_at = m.retire_at
    if (m.note) entry.note = m.note
  }
  return entry
}

export function familyEntry(f: FamilyConfig, defaultMember: ModelConfig, ownedBy: string): ModelEntry {
  return {
    ...modelEntry(defaultMember, ownedBy),
    id: f.id,
    reasoning: { mode: 'mapped', levels: [...LEVELS], default_level: f.default_level },
    family: { default_level: f.default_level, members: { ...f.members } },
  }
}
