/**
 * The gateway as benchmarks start it: bench/gateway-process.ts in a child process, with the
 * Node flags the server is shipped with. Those are the flags of `npm start` in package.json
 * (the Dockerfile, the systemd unit and `npm run start:prod` carry the same; a test keeps them
 * equal), so a benchmark measures what runs.
 */
import fs from 'node:fs'
import path from 'node:path'
import { repoRoot } from '../kernel/paths.js'
import { startChild, type Child } from './children.js'

export function serverNodeFlags(): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  return pkg.scripts.start!.split(/\s+/).filter((w) => w.startsWith('--'))
}

/** A gateway process serving `configDir`; `nodeFlags` replace the shipped ones (an A/B of V8 settings). */
export function startGatewayChild(configDir: string, env: NodeJS.ProcessEnv = {}, nodeFlags: string[] = serverNodeFlags()): Promise<Child> {
  return startChild(path.join(repoRoot, 'dist', 'bench', 'gateway-process.js'), [configDir], env, nodeFlags)
}
