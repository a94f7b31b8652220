/**
 * The name a model server reports in a response's `model`, and the rule that makes it map back
 * to one catalog entry (GET /models/<that name>): two enabled entries may not report the same
 * name, and no entry may report a name that is another entry's id or a family's name (ids are
 * looked up first, so the reply would map to that other entry). Two entries that share a server
 * (a retired alias of a model, say) tell them apart with `reported_name`.
 */
import path from 'node:path'
import { ConfigError } from '../../contract/errors.js'
import type { ModelConfig, ModelsFile } from '../../../schemas/models.schema.js'
import { reportedNameOf } from '../../contract/catalog.js'

/** Throws a ConfigError naming both entries when a reported name would map back ambiguously. */
export function checkReportedNames(configDir: string, file: ModelsFile): void {
  const where = path.join(configDir, 'models.yaml')
  const names = new Map<string, string>([
    ...(file.families ?? []).map((f) => [f.id, `family ${f.id}`] as const),
    ...file.models.map((m) => [m.id, `model ${m.id}`] as const),
  ])
  const byReported = new Map<string, ModelConfig>()
  for (const m of file.models) {
    if (m.enabled === false) continue
    const name = reportedNameOf(m)
    const other = byReported.get(name)
    if (other)
      throw new ConfigError(
        `${where}: models ${other.id} and ${m.id} both report the server name ${name}, so GET /models/${name} cannot map a reply back to the right one; give one of them its own served_name, or a distinct reported_name`,
      )
    byReported.set(name, m)
    const owner = names.get(name)
    if (owner && owner !== `model ${m.id}`)
      throw new ConfigError(
        `${where}: model ${m.id} reports the server name ${name}, which is the name of ${owner}, so its replies would map back to ${owner}; set a distinct reported_name`,
      )
  }
}
