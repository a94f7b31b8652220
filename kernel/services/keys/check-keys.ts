/**
 * keys.yaml beyond its schema: unique ids, known groups, a hash for every key but the demo one,
 * a readable `expires_at`, and key `models` within what the group may use.
 */
import { ConfigError } from '../../contract/errors.js'
import type { KeysFile } from '../../../schemas/keys.schema.js'
import type { ModelsFile } from '../../../schemas/models.schema.js'
import { keyModelsProblem } from '../catalog/permits.js'
import { expiryTime } from './expiry.js'

export function checkKeys(file: string, keys: KeysFile, models: ModelsFile): void {
  const ids = new Set<string>()
  const families = models.families ?? []
  const catalog = {
    model: (id: string) => models.models.find((m) => m.id === id),
    family: (id: string) => families.find((f) => f.id === id),
    families: () => families,
  }
  for (const k of keys.keys) {
    const fail = (problem: string): never => {
      throw new ConfigError(`${file}: key ${k.id}: ${problem}`)
    }
    if (ids.has(k.id)) throw new ConfigError(`${file}: key ${k.id} is listed twice`)
    ids.add(k.id)
    if (!Object.hasOwn(keys.groups, k.group)) fail(`group '${k.group}' is not in groups`)
    if (!k.hash && !k.demo) fail('needs hash (sha256:<hex>) or demo: true')
    // A past time is allowed: the key has expired since the file was written.
    if (k.expires_at !== undefined) expiryTime(k.expires_at, fail)
    const problem = k.models && keyModelsProblem(k.group, keys.groups[k.group]!.models ?? ['*'], k.models, catalog)
    if (problem) fail(problem)
  }
}
