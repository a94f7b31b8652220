/**
 * The one permission check of the catalog: whether a caller may use a model. A group lists
 * catalog ids and family names (keys.yaml `groups.<g>.models`, or the admin API), `*` for every
 * model; a key may narrow that with its own `models`. A model asked for by several names (the
 * name sent, the catalog id that answers, the family it was reached through) is permitted when
 * any of them is listed, by the group and by the key.
 */
import type { FamilyConfig } from '../../../schemas/models.schema.js'
import type { KeyStore } from '../../contract/key-store.js'
import type { PermitCaller } from '../../contract/catalog.js'

/**
 * No caller (an in-process call made without one) is not restricted. A group the key store
 * does not know permits nothing: a permission check fails closed. A key without `models` of
 * its own may use whatever its group may.
 */
export function callerPermits(
  keys: Pick<KeyStore, 'group' | 'key'>,
  caller: PermitCaller | undefined,
  names: readonly string[],
): boolean {
  if (caller === undefined) return true
  const allowed = keys.group(caller.group)?.models
  if (!allowed) return false
  if (!allowed.includes('*') && !names.some((n) => allowed.includes(n))) return false
  const own = caller.keyId === undefined ? undefined : keys.key(caller.keyId)?.models
  return own === undefined || own.includes('*') || names.some((n) => own.includes(n))
}

/** The catalog's names, as a key's `models` are checked against them. */
export interface CatalogNames {
  model(id: string): object | undefined
  family(id: string): FamilyConfig | undefined
  families(): readonly FamilyConfig[]
}

/**
 * Why a key's own `models` are not within what its group may use (undefined when they are):
 * each must be a catalog model or family the group may use, that is, a model the group lists
 * or reaches through a family it lists, or a family it lists or whose members it lists all.
 * `*` is within only a group that permits everything.
 */
export function keyModelsProblem(
  groupId: string,
  groupModels: readonly string[],
  keyModels: readonly string[],
  catalog: CatalogNames,
): string | undefined {
  const all = groupModels.includes('*')
  for (const name of keyModels) {
    if (name === '*') {
      if (all) continue
      return `models: * is more than group ${groupId} may use`
    }
    const family = catalog.family(name)
    if (!family && !catalog.model(name)) return `models: ${name} is not a model or family of the catalog`
    if (all || groupModels.includes(name)) continue
    const reached = family
      ? Object.values(family.members).every((m) => groupModels.includes(m))
      : catalog.families().some((f) => groupModels.includes(f.id) && Object.values(f.members).includes(name))
    if (!reached) return `models: ${name} is not permitted to group ${groupId}`
  }
  return undefined
}
