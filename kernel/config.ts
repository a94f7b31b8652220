/**
 * Loads the deployment: server.yaml, models.yaml and keys.yaml from the config folder, each
 * validated by its schema (defaults applied), and cross-checked (every model's backend exists,
 * every family member and replacement is a model, every key's group exists). Any error names
 * the file and the place in it.
 */
import fs from 'node:fs'
import path from 'node:path'
import { load as loadYaml } from 'js-yaml'
import { describeErrors, validatorFor } from './ajv.js'
import type { Deployment } from './kernel.js'
import { modelsFileSchema, type ModelsFile } from '../schemas/models.schema.js'
import { keysFileSchema, type KeysFile } from '../schemas/keys.schema.js'
import { serverFileSchema, type ServerFile } from '../schemas/server.schema.js'

export class ConfigError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ConfigError'
  }
}

export function readYaml(file: string): unknown {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (err) {
    throw new ConfigError(`${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`)
  }
  try {
    return loadYaml(text, { filename: file })
  } catch (err) {
    throw new ConfigError(`${file}: not valid YAML: ${(err as Error).message.split('\n')[0]}`)
  }
}

function validated<T>(file: string, schema: object, value: unknown): T {
  const validate = validatorFor(schema)
  // Validate a copy: ajv writes defaults into what it validates.
  const copy = structuredClone(value ?? {})
  if (!validate(copy)) throw new ConfigError(`${file}: ${describeErrors(validate.errors)}`)
  return copy as T
}

export interface LoadOptions {
  configDir: string
  pipelinesDir: string
  dataDir: string
  /** Overrides of server.yaml (tests set port 0, short limits …). */
  server?: Partial<ServerFile>
}

export function loadDeployment(options: LoadOptions): Deployment {
  const serverFile = path.join(options.configDir, 'server.yaml')
  const rawServer = fs.existsSync(serverFile) ? readYaml(serverFile) : {}
  const server = validated<Deployment['server']>(serverFile, serverFileSchema, { ...(rawServer as object), ...options.server })
  const modelsPath = path.join(options.configDir, 'models.yaml')
  const models = validated<ModelsFile>(modelsPath, modelsFileSchema, readYaml(modelsPath))
  const keysPath = path.join(options.configDir, 'keys.yaml')
  const keys = validated<KeysFile>(keysPath, keysFileSchema, readYaml(keysPath))
  checkModels(modelsPath, models)
  checkKeys(keysPath, keys)

  const files = new Map<string, unknown>()
  return {
    configDir: options.configDir,
    pipelinesDir: options.pipelinesDir,
    dataDir: options.dataDir,
    server,
    models,
    keys,
    file(name: string): unknown {
      if (!files.has(name)) files.set(name, readYaml(path.join(options.configDir, name)))
      return files.get(name)
    },
  }
}

function checkModels(file: string, models: ModelsFile): void {
  const ids = new Set<string>()
  for (const m of models.models) {
    if (ids.has(m.id)) throw new ConfigError(`${file}: model ${m.id} is listed twice`)
    ids.add(m.id)
    if (!models.backends[m.backend]) throw new ConfigError(`${file}: model ${m.id}: backend '${m.backend}' is not in backends`)
    if (m.reasoning?.mode === 'mapped') {
      const levels = Object.keys(m.reasoning.levels ?? {})
      if (levels.length === 0) throw new ConfigError(`${file}: model ${m.id}: reasoning mode mapped needs at least one level`)
      if (m.reasoning.default_level && !levels.includes(m.reasoning.default_level))
        throw new ConfigError(`${file}: model ${m.id}: default_level ${m.reasoning.default_level} is not one of its levels`)
    }
    if (m.status === 'deprecated' && (!m.replacement || !m.retire_at))
      throw new ConfigError(`${file}: model ${m.id}: a deprecated model needs replacement and retire_at`)
  }
  for (const m of models.models) {
    if (m.replacement && !ids.has(m.replacement)) throw new ConfigError(`${file}: model ${m.id}: replacement ${m.replacement} is not a model`)
    for (const [name, boon] of Object.entries(m.boons ?? {})) {
      if (boon?.helper_model && !ids.has(boon.helper_model)) throw new ConfigError(`${file}: model ${m.id}: boon ${name}: helper_model ${boon.helper_model} is not a model`)
    }
  }
  for (const f of models.families ?? []) {
    if (ids.has(f.id)) throw new ConfigError(`${file}: family ${f.id} has the name of a model`)
    for (const [level, member] of Object.entries(f.members)) {
      if (!ids.has(member)) throw new ConfigError(`${file}: family ${f.id}: member ${level} → ${member} is not a model`)
    }
  }
  const all = new Set([...ids, ...(models.families ?? []).map((f) => f.id)])
  if (!all.has(models.default_model)) throw new ConfigError(`${file}: default_model ${models.default_model} is not a model`)
}

function checkKeys(file: string, keys: KeysFile): void {
  const ids = new Set<string>()
  for (const k of keys.keys) {
    if (ids.has(k.id)) throw new ConfigError(`${file}: key ${k.id} is listed twice`)
    ids.add(k.id)
    if (!keys.groups[k.group]) throw new ConfigError(`${file}: key ${k.id}: group '${k.group}' is not in groups`)
    if (!k.hash && !k.demo) throw new ConfigError(`${file}: key ${k.id}: needs hash (sha256:<hex>) or demo: true`)
  }
}
