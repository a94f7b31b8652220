/**
 * Loads the deployment: server.yaml, models.yaml and keys.yaml from the config folder, each
 * validated by its schema (defaults applied), and cross-checked (every model's backend exists,
 * every family member, replacement and fallback is a model, every key's group exists, every
 * environment variable a backend names is set). Any error names the file and the place in it.
 */
import fs from 'node:fs'
import path from 'node:path'
import { load as loadYaml } from 'js-yaml'
import { describeErrors, validatorFor } from '../contract/ajv.js'
import type { Deployment } from '../contract/kernel.js'
import { ConfigError } from '../contract/errors.js'
import { modelsFileSchema, type ModelsFile } from '../../schemas/models.schema.js'
import { checkModels } from '../services/catalog/check-models.js'
import { checkBackendEnv } from '../services/catalog/env-refs.js'
import { keysFileSchema, type KeysFile } from '../../schemas/keys.schema.js'
import { checkKeys } from '../services/keys/check-keys.js'
import { serverFileSchema, type ServerOverrides } from '../../schemas/server.schema.js'

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
  server?: ServerOverrides
  /** Where models.yaml's `${NAME}` are read (default: the process's environment). */
  env?: NodeJS.ProcessEnv
}

export function loadDeployment(options: LoadOptions): Deployment {
  const serverFile = path.join(options.configDir, 'server.yaml')
  const raw = (fs.existsSync(serverFile) ? readYaml(serverFile) : {}) as { limits?: object }
  const merged = { ...raw, ...options.server, limits: { ...raw?.limits, ...options.server?.limits } }
  const server = validated<Deployment['server']>(serverFile, serverFileSchema, merged)
  const modelsPath = path.join(options.configDir, 'models.yaml')
  const models = validated<ModelsFile>(modelsPath, modelsFileSchema, readYaml(modelsPath))
  const keysPath = path.join(options.configDir, 'keys.yaml')
  const keys = validated<KeysFile>(keysPath, keysFileSchema, readYaml(keysPath))
  checkModels(modelsPath, models)
  // Every variable a backend names is set; the values are read again by the catalog, never kept here.
  checkBackendEnv(modelsPath, models.backends, options.env ?? process.env)
  checkKeys(keysPath, keys, models)

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
