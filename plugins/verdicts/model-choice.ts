/**
 * Which model answers a verdicts request (spec rule 8): the deployment default when `model` is
 * left out; a family's `none` member (asked for through the family, so that a group permitted
 * the family is permitted its member); `auto` among vision models only when images are sent;
 * any other name as the chat route resolves it (ids and server names; 404 when unknown).
 */
import { chooseAutoModel, queueLoadOf } from '../../domains/gateway/auto-model.js'
import { reportedNameOf } from '../../kernel/contract/index.js'
import type { Kernel, Principal } from '../../kernel/contract/index.js'
import type { ModelConfig } from '../../schemas/models.schema.js'

export interface ModelChoice {
  /** The fields that name the model in each chat call. */
  readonly request: { model: string; reasoning_effort?: 'none' }
  /** The catalog model expected to answer; undefined when the name resolves to none (the chat route answers 404). */
  readonly model: ModelConfig | undefined
  /** The catalog id the response names unless another model answered (retirement by replacement). */
  readonly id: string
}

export function chooseModel(
  requested: string | undefined,
  hasImages: boolean,
  kernel: Kernel,
  principal: Principal | undefined,
): ModelChoice {
  const { catalog } = kernel
  const name = requested ?? catalog.defaultModel
  if (name === 'auto') {
    const model = chooseAutoModel(
      catalog,
      { images: hasImages, group: principal?.group, keyId: principal?.keyId },
      kernel.now(),
      queueLoadOf(kernel),
    )
    return { request: { model: model.id }, model, id: model.id }
  }
  const family = catalog.family(name)
  if (family) {
    const member = catalog.model(family.members.none)
    return { request: { model: family.id, reasoning_effort: 'none' }, model: member, id: family.members.none }
  }
  const model = catalog.model(name) ?? catalog.byReportedName(name)
  return { request: { model: name }, model, id: model?.id ?? name }
}

/**
 * The catalog id of the model that answered, from the name its server reported: the chosen
 * one, unless the chat route let a replacement answer for a retired model.
 */
export function answeringModel(choice: ModelChoice, reported: string | undefined, kernel: Kernel): string {
  if (reported === undefined || (choice.model && reportedNameOf(choice.model) === reported)) return choice.id
  return kernel.catalog.byReportedName(reported)?.id ?? choice.id
}
