/**
 * Which of a model's boons (models.yaml `boons`) act, read once here so that the boons step,
 * the capability check and the catalog's `boon_details` cannot disagree. `vision` and
 * `speculation` are implemented; `web_search` and `image_generation` are listed when configured
 * but never act yet (docs/decisions.md).
 */
import type { ModelConfig } from '../../../schemas/models.schema.js'

export type BoonName = keyof NonNullable<ModelConfig['boons']>

/**
 * Whether a boon acts for the model (whatever a request's `x-gateway-boons: off` says): vision
 * when it is on, names a helper model, and the model does not read images itself; speculation
 * when it is on, names a draft model other than the model itself, and the model does not
 * reason (a draft cannot stand in for reasoning the client would have seen).
 */
export function boonActs(model: ModelConfig, name: BoonName): boolean {
  if (name === 'speculation') {
    const draft = model.boons?.speculation
    const reasons = model.reasoning?.mode === 'mapped' && Object.keys(model.reasoning.levels ?? {}).some((level) => level !== 'none')
    return draft !== undefined && draft.active !== false && draft.helper_model !== undefined && draft.helper_model !== model.id && !reasons
  }
  if (name !== 'vision') return false
  const boon = model.boons?.vision
  return boon !== undefined && boon.active !== false && boon.helper_model !== undefined && !model.supports_vision
}
