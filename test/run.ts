/**
 * `npm test`: runs every uvu suite under dist/test in one process and ends with the plain
 * summary line `N passed, N failed, N skipped` (uvu's own summary is kept above it).
 */
import { spawn } from 'node:child_process'
import path from 'node:path'
import { repoRoot } from '../kernel/contract/paths.js'
import { summaryLine, tallyUvu } from './uvu-tally.js'

const bin = path.join(repoRoot, 'node_modules', 'uvu', 'bin.js')
const args = [bin, path.join(repoRoot, 'dist', 'test'), '\\.test\\.js$', ...process.argv.slice(2)]
const child = spawn(process.execPath, ['--enable-source-maps', ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
let out = ''
child.stdout.on('data', (chunk: Buffer) => {
  out += chunk.toString()
  process.stdout.write(chunk)
})
child.on('close', (code) => {
  const tally = tallyUvu(out)
  process.stdout.write(`\n${summaryLine(tally)}\n`)
  // uvu exits 0 when a suite's `before` hook threw; the tally still counts those tests as failed.
  process.exit(code || (tally.failed > 0 || !tally.complete ? 1 : 0))
})
