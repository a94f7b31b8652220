#!/usr/bin/env node
/**
 * Runs before `npm start`, `npm test`, `npm run sluice`, `npm run kb` … (and at `npm ci`, as
 * `prepare`): builds only when a source is newer than the last build, so a command runs at once
 * from the built files. Where TypeScript is not installed (a production install,
 * `npm ci --omit=dev`) it never builds: the built files are what runs. `--stamp` marks a build
 * just made (the end of `npm run build`).
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const stamp = path.join(root, 'dist', '.build-stamp')
const SOURCES = ['bin', 'kernel', 'plugins', 'domains', 'protocols', 'schemas', 'sim', 'test', 'bench', 'portal']
const FILES = ['tsconfig.json', 'package.json', 'package-lock.json']

if (process.argv.includes('--stamp')) {
  fs.mkdirSync(path.dirname(stamp), { recursive: true })
  fs.writeFileSync(stamp, `${new Date().toISOString()}\n`)
  process.exit(0)
}

/** The newest modification time of the sources (ms). */
function newest() {
  let max = 0
  const visit = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist') continue
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) visit(full)
      else max = Math.max(max, fs.statSync(full).mtimeMs)
    }
  }
  for (const d of SOURCES) if (fs.existsSync(path.join(root, d))) visit(path.join(root, d))
  for (const f of FILES)
    if (fs.existsSync(path.join(root, f))) max = Math.max(max, fs.statSync(path.join(root, f)).mtimeMs)
  return max
}

const built = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0
if (built > 0 && newest() <= built) process.exit(0)
if (!fs.existsSync(path.join(root, 'node_modules', 'typescript'))) {
  if (fs.existsSync(path.join(root, 'dist', 'bin', 'sluice-server.js'))) process.exit(0)
  process.stderr.write(
    'sluice: dist/ is not built, and TypeScript is not installed here: run `npm run build` where devDependencies are (README, "In production").\n',
  )
  // At `npm ci --omit=dev` (prepare: --at-install) the install still succeeds; a command that needs dist/ fails on its own.
  process.exit(process.argv.includes('--at-install') ? 0 : 1)
}
const run = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' })
process.exit(run.status ?? 1)
