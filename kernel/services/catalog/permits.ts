/**
 * The one permission check of the catalog: whether a caller's group may use a model. A group
 * lists catalog ids and family names (keys.yaml `groups.<g>.models`, or the admin API), `*`
 * for every model. A model asked for by several names (the name sent, the catalog id that
 * answers, the family it was reached through) is permitted when any of them is listed.
 */
import type { KeyStore } from '../../contract/kernel.js'

/**
 * No group (an in-process call made without a caller) is not restricted. A group the key
 * store does not know permits nothing: a permission check fails closed.
 */
export function groupPermits(
  keys: Pick<KeyStore, 'group'>,
  group: string | undefined,
  names: readonly string[],
): boolean {
  if (group === undefined) return true
  const allowed = keys.group(group)?.models
  if (!allowed) return false
  return allowed.includes('*') || names.some((n) => allowed.includes(n))
}
