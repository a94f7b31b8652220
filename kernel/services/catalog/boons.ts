/**
 * Which of a model's boons (models.yaml `boons`) act, read once here so that the boons step,
 * the capability check and the catalog's `boon_details` cannot disagree. `speculation` is
 * listed when configured but never acts yet (docs/decisions.md).
 */
import type { ModelConfig } from '../../../schemas/models.schema.js'

export type BoonName = keyof NonNullable<ModelConfig['boons']>

/**
 * Whether a boon acts for the model (whatever a request's `x-gateway-boons: off` says):
 * - vision: on, names a helper model, and the model does not read images itself;
 * - web_search: on, and the model calls functions (the gateway runs the search; no helper);
 * - image_generation: on, names a helper (an image model), and the model calls functions.
 */
export function boonActs(model: ModelConfig, name: BoonName): boolean {
  const boon = model.boons?.[name]
  if (boon === undefined || boon.active === false) return false
  switch (name) {
    case 'vision':
      return boon.helper_model !== undefined && !model.supports_vision
    case 'web_search':
      return model.supports_function_calling === true
    case 'image_generation':
      return boon.helper_model !== undefined && model.supports_function_calling === true
    default:
      return false
  }
}
