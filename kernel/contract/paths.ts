/** Where the project's folders are, wherever it is run from (compiled code runs from dist/). */
import { fileURLToPath } from 'node:url'
import path from 'node:path'

const here = path.dirname(fileURLToPath(import.meta.url))
/** The repository root: dist/kernel/contract → ../../.. */
export const repoRoot = path.resolve(here, '..', '..', '..')
export const defaultConfigDir = path.join(repoRoot, 'config')
export const defaultPipelinesDir = path.join(repoRoot, 'pipelines')
