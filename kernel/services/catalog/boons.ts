/**
 * Which of a model's boons (models.yaml `boons`) act, read once here so that the boons step,
 * the capability check and the catalog's `boon_details` cannot disagree. Only `vision` is
 * implemented; `web_search`, `image_generation` and `speculation` are listed when configured
 * but never act yet (docs/decisions.md).
 */
import type { ModelConfig } from '../../../schemas/models.schema.js'

export type BoonName = keyof NonNullable<ModelConfig['boons']>

/**
 * Whether a boon acts for the model (whatever a request's `x-gateway-boons: off` says): vision
 * when it is on, names a helper model, and the model does not read images itself.
 */
export function boonActs(model: ModelConfig, name: BoonName): boolean {
  if (name !== 'vision') return false
  const boon = model.boons?.vision
  return boon !== undefined && boon.active !== false && boon.helper_model !== undefined && !model.supports_vision
}
