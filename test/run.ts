/**
 * `npm test`: runs every uvu suite under dist/test in one process and ends with the plain
 * summary line `N passed, N failed` (uvu's own summary is kept above it).
 */
import { spawn } from 'node:child_process'
import path from 'node:path'
import { repoRoot } from '../kernel/paths.js'

const bin = path.join(repoRoot, 'node_modules', 'uvu', 'bin.js')
const args = [bin, path.join(repoRoot, 'dist', 'test'), '\\.test\\.js$', ...process.argv.slice(2)]
const child = spawn(process.execPath, ['--enable-source-maps', ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
let out = ''
child.stdout.on('data', (chunk: Buffer) => {
  out += chunk.toString()
  process.stdout.write(chunk)
})
child.on('close', (code) => {
  // uvu prints "Total: N", "Passed: N", "Skipped: N" (with colour codes).
  const plain = out.replace(/\x1b\[[0-9;]*m/g, '')
  const total = Number(/Total:\s+(\d+)/.exec(plain)?.[1] ?? 0)
  const passed = Number(/Passed:\s+(\d+)/.exec(plain)?.[1] ?? 0)
  const skipped = Number(/Skipped:\s+(\d+)/.exec(plain)?.[1] ?? 0)
  const failed = Math.max(0, total - passed - skipped)
  process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`)
  process.exit(code ?? 1)
})
