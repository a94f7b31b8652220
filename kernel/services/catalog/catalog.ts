/**
 * The model catalog service: lookups by catalog id, family name and reported server name, and
 * the permission check. Made at load; a catalog whose reported names would map a reply back to
 * the wrong entry is refused (ConfigError), like any other bad config.
 */
import path from 'node:path'
import type { Deployment } from '../../contract/kernel.js'
import type { KeyStore } from '../../contract/key-store.js'
import type { Catalog } from '../../contract/catalog.js'
import type { BackendConfig, FamilyConfig, ModelConfig } from '../../../schemas/models.schema.js'
import { callerPermits } from './permits.js'
import { checkReportedNames } from './reported-names.js'
import { reportedNameOf } from '../../contract/catalog.js'
import { resolveBackend } from './env-refs.js'

export interface CatalogOptions {
  /** The groups and keys, for `permits` (they change through the admin API, so they are looked up live). */
  keys: Pick<KeyStore, 'group' | 'key'>
  /**
   * Base URLs of the in-process model servers, by the name a backend's url gives them:
   * `embedded` (the simulator) and `embedded-embedder` (the sentence encoder). A backend
   * naming one that was not started is left out.
   */
  embeddedUrls?: Readonly<Partial<Record<'embedded' | 'embedded-embedder', string>>>
  /** Where the backends' `${NAME}` are read (default: the process's environment). */
  env?: NodeJS.ProcessEnv
}

export function createCatalog(deployment: Deployment, options: CatalogOptions): Catalog {
  const { models: file } = deployment
  const models = new Map<string, ModelConfig>(file.models.map((m) => [m.id, m]))
  const families = new Map<string, FamilyConfig>((file.families ?? []).map((f) => [f.id, f]))
  checkReportedNames(deployment.configDir, file)
  // Enabled entries report distinct names (checked above); a disabled entry is found by its
  // reported name only when no enabled entry has it.
  const reported = new Map<string, ModelConfig>()
  for (const m of [
    ...file.models.filter((m) => m.enabled !== false),
    ...file.models.filter((m) => m.enabled === false),
  ]) {
    const name = reportedNameOf(m)
    if (!reported.has(name)) reported.set(name, m)
  }
  const backends = new Map<string, BackendConfig & { name: string; baseUrl: string }>()
  const where = path.join(deployment.configDir, 'models.yaml')
  for (const [name, written] of Object.entries(file.backends)) {
    // The values of `${NAME}` live here only, where the upstream call reads them (env-refs.ts).
    const b = resolveBackend(where, name, written, options.env ?? process.env)
    // With `replicas` only, the first names the backend (the backends service spreads load over all).
    let baseUrl = b.url ?? b.replicas?.[0] ?? ''
    if (b.url === 'embedded' || b.url === 'embedded-embedder') {
      const url = options.embeddedUrls?.[b.url]
      if (!url) continue
      baseUrl = url
    }
    backends.set(name, { ...b, name, baseUrl: baseUrl.replace(/\/+$/, '') })
  }
  const modelList = [...models.values()]
  const familyList = [...families.values()]
  return {
    defaultModel: file.default_model,
    model: (id) => models.get(id),
    family: (id) => families.get(id),
    byReportedName: (name) => reported.get(name),
    models: () => modelList,
    families: () => familyList,
    backend: (name) => backends.get(name),
    permits: (caller, names) => callerPermits(options.keys, caller, names),
  }
}
