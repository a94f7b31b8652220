/**
 * Suites that need Redis or PostgreSQL (support/needs-server.ts), run by the real uvu with the
 * server pointed at a closed port: outside CI their tests count as skipped, with one line saying
 * why; under CI=true they count as failed, naming the server. Never as passed.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { repoRoot } from '../../kernel/contract/paths.js'
import { summaryLine, tallyUvu } from '../uvu-tally.js'

const test = suite('npm test: a suite whose server is absent is skipped, or failed under CI')

const gate = path.join(repoRoot, 'dist', 'test', 'support', 'needs-server.js')
const suiteFile = `import { suiteNeeding } from ${JSON.stringify(gate)}
const redis = suiteNeeding(['redis'], 'needs redis')
redis.before(() => { throw new Error('the hooks of a suite that does not run are dropped') })
redis('one', () => {})
redis('two', () => {})
redis.run()
const plain = suiteNeeding([], 'needs nothing')
plain('three', () => {})
plain.run()
`

function runWithoutRedis(ci: boolean): { stdout: string; tally: ReturnType<typeof tallyUvu> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-needs-server-'))
  try {
    fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'), 'dir')
    fs.writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}')
    fs.writeFileSync(path.join(dir, 'gate.test.js'), suiteFile)
    const env: NodeJS.ProcessEnv = { ...process.env, SLUICE_TEST_REDIS_URL: 'redis://127.0.0.1:1' }
    if (ci) env.CI = 'true'
    else delete env.CI
    const run = spawnSync(
      process.execPath,
      [path.join(repoRoot, 'node_modules', 'uvu', 'bin.js'), dir, '\\.test\\.js$'],
      { encoding: 'utf8', cwd: dir, env },
    )
    return { stdout: run.stdout, tally: tallyUvu(run.stdout) }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

test('outside CI: skipped, with the reason printed once', () => {
  const { stdout, tally } = runWithoutRedis(false)
  assert.is(summaryLine(tally), '1 passed, 0 failed, 2 skipped', stdout)
  assert.is(stdout.split('(skipped: Redis at 127.0.0.1:1 is not reachable;').length - 1, 1, stdout)
})

test('under CI=true: failed, naming the server', () => {
  const { stdout, tally } = runWithoutRedis(true)
  assert.is(summaryLine(tally), '1 passed, 2 failed, 0 skipped', stdout)
  assert.is(stdout.split('Redis at 127.0.0.1:1 is not reachable; CI needs it').length - 1, 2, stdout)
})

test.run()
