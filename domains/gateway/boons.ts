/**
 * Which of a model's boons (models.yaml `boons`) act, read once here so that the boons step,
 * the capability check and the catalog's `boon_details` cannot disagree. All four act when
 * their conditions below hold.
 */
import type { ModelConfig } from '../../schemas/models.schema.js'

export type BoonName = keyof NonNullable<ModelConfig['boons']>

/**
 * Whether a boon acts for the model (whatever a request's `x-gateway-boons: off` says):
 * - vision: on, names a helper model, and the model does not read images itself;
 * - web_search: on, and the model calls functions (the gateway runs the search; no helper);
 * - image_generation: on, names a helper (an image model), and the model calls functions;
 * - speculation: on, names a draft model other than the model itself, and the model does not
 *   reason (a draft cannot stand in for reasoning the client would have seen).
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
    case 'speculation': {
      const reasons =
        model.reasoning?.mode === 'mapped' &&
        Object.keys(model.reasoning.levels ?? {}).some((level) => level !== 'none')
      return boon.helper_model !== undefined && boon.helper_model !== model.id && !reasons
    }
    default:
      return false
  }
}
