/**
 * The gateway as benchmarks start it: bench/gateway-process.ts in a child process, with the
 * Node flags the server is shipped with and a data folder of its own. The flags are those of
 * `npm start` in package.json (the Dockerfile, the systemd unit and `npm run start:prod` carry
 * the same; a test keeps them equal), so a benchmark measures what runs.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { repoRoot } from '../kernel/contract/paths.js'
import { startChild, type Child } from './children.js'

const startWords = () =>
  (
    JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts.start!.split(/\s+/)

export function serverNodeFlags(): string[] {
  return startWords().filter((w) => w.startsWith('--'))
}

/** The environment `npm start` sets before `node` (the allocator's setting). */
export function serverEnv(): Record<string, string> {
  const words = startWords()
  return Object.fromEntries(
    words.slice(0, words.indexOf('node')).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
  )
}

/** The data folders made for gateways, removed at exit (one listener for them all: a bench may start dozens). */
const dataDirs = new Set<string>()

export interface GatewayChildOptions {
  /** Replace the shipped flags (an A/B of V8 settings). */
  nodeFlags?: string[]
  /** The dist folder of another build (a before/after); this build's by default. */
  dist?: string
}

/**
 * A gateway process serving `configDir`. Unless `env` names one (SLUICE_DATA), it gets an empty
 * data folder, removed at exit: two gateways sharing ./data write one SQLite file and one record
 * journal (each replaying and deleting the other's segments), and the file grows run after run.
 */
export function startGatewayChild(
  configDir: string,
  env: NodeJS.ProcessEnv = {},
  options: GatewayChildOptions = {},
): Promise<Child> {
  let data = env.SLUICE_DATA
  if (data === undefined) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-data-'))
    // A run writes some 100 MB of records into it; children.ts has killed the gateway by then.
    if (dataDirs.size === 0)
      process.on('exit', () => dataDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })))
    dataDirs.add(dir)
    data = dir
  }
  const dist = options.dist ?? path.join(repoRoot, 'dist')
  return startChild(
    path.join(dist, 'bench', 'gateway-process.js'),
    [configDir],
    { ...serverEnv(), ...env, SLUICE_DATA: data },
    options.nodeFlags ?? serverNodeFlags(),
  )
}
