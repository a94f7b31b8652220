/**
 * Reading `config/simulator.yaml` (or any simulator settings file). Synchronous on purpose: it
 * runs once, at boot, before anything listens.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { load } from 'js-yaml'
import { validateSimConfig } from './config-validation.js'
import type { SimConfig } from './schema.js'

/** The repository root, wherever the compiled code runs from: dist/sim → ../.. */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')

export const defaultSimConfigFile = path.join(repoRoot, 'config', 'simulator.yaml')

/** Reads, validates and fills defaults; throws SimConfigError naming the file and the fields. */
export function loadSimConfig(file: string = defaultSimConfigFile): SimConfig {
  return validateSimConfig(load(readFileSync(file, 'utf8')), file)
}
