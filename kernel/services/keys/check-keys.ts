/** keys.yaml beyond its schema: unique ids, known groups, and a hash for every key but the demo one. */
import { ConfigError } from '../../contract/errors.js'
import type { KeysFile } from '../../../schemas/keys.schema.js'

export function checkKeys(file: string, keys: KeysFile): void {
  const ids = new Set<string>()
  for (const k of keys.keys) {
    if (ids.has(k.id)) throw new ConfigError(`${file}: key ${k.id} is listed twice`)
    ids.add(k.id)
    if (!Object.hasOwn(keys.groups, k.group))
      throw new ConfigError(`${file}: key ${k.id}: group '${k.group}' is not in groups`)
    if (!k.hash && !k.demo) throw new ConfigError(`${file}: key ${k.id}: needs hash (sha256:<hex>) or demo: true`)
  }
}
