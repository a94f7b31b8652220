/**
 * `npm run bench -- <name…>`: runs benchmarks from bench/, each in its own process, one after
 * another. With no name, runs `chat`. Names: the files of bench/ that are benchmarks.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { repoRoot } from '../kernel/contract/paths.js'

const dir = path.join(repoRoot, 'dist', 'bench')
const helpers = new Set([
  'run',
  'children',
  'load',
  'proxy',
  'gateway-process',
  'bench-setup',
  'gateway-child',
  'embeddings-use-lite',
  'quality-corpus',
  'quality-metrics',
  'bm25-baseline',
  'scale-corpus',
  'embedding-cache',
  'private-redis',
  'alloc-sampling',
  'alloc-summary',
  'postgres-cpu',
])
const known = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.js'))
  .map((f) => f.slice(0, -3))
  .filter((n) => !helpers.has(n))
// Names come first; from the first flag on, everything is passed to each benchmark.
const args = process.argv.slice(2)
const firstFlag = args.findIndex((a) => a.startsWith('-'))
const names = firstFlag === -1 ? args : args.slice(0, firstFlag)
const extra = firstFlag === -1 ? [] : args.slice(firstFlag)
for (const name of names.length ? names : ['chat']) {
  if (!known.includes(name)) {
    console.error(`unknown benchmark '${name}' (known: ${known.join(', ')})`)
    process.exit(2)
  }
  const r = spawnSync(process.execPath, [path.join(dir, `${name}.js`), ...extra], { stdio: 'inherit' })
  if (r.status !== 0) process.exit(r.status ?? 1)
}
