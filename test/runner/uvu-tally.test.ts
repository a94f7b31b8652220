import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { repoRoot } from '../../kernel/contract/paths.js'
import { summaryLine, tallyUvu } from '../uvu-tally.js'

const test = suite('npm test: the tally of a uvu run')

// uvu's summary as it prints it, colours included.
const summary = (total: number, passed: number, skipped: number) =>
  `\n  Total:     ${total}\n\x1b[31m  Passed:    ${passed}\x1b[39m\n  Skipped:   ${skipped ? `\x1b[33m${skipped}\x1b[39m` : skipped}\n  Duration:  12.34ms\n\n`

test('two failed and two skipped: skipped tests are not taken off twice', () => {
  const tally = tallyUvu(`\x1b[41m FAIL \x1b[49m a\n\x1b[41m FAIL \x1b[49m b\n${summary(10, 8, 2)}`)
  assert.equal(tally, { passed: 8, failed: 2, skipped: 2, complete: true })
  assert.is(summaryLine(tally), '8 passed, 2 failed, 2 skipped')
})

test('all passed, none skipped', () => {
  assert.is(summaryLine(tallyUvu(summary(5, 5, 0))), '5 passed, 0 failed, 0 skipped')
})

test('no summary (uvu stopped early) is not a clean run', () => {
  const tally = tallyUvu('Error: Cannot find module …\n')
  assert.is(tally.complete, false)
  assert.match(summaryLine(tally), /uvu printed no summary/)
})

test('the real uvu: 2 failed, 2 skipped, a suite whose before hook threw', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-uvu-'))
  fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'), 'dir')
  fs.writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}')
  fs.writeFileSync(
    path.join(dir, 'a.test.js'),
    `import { suite } from 'uvu'
const t = suite('mixed')
t('pass 1', () => {}); t('pass 2', () => {}); t('pass 3', () => {})
t('fail 1', () => { throw new Error('no') }); t('fail 2', () => { throw new Error('no') })
t.skip('skip 1', () => {}); t.skip('skip 2', () => {})
t.run()
const broken = suite('broken before')
broken.before(() => { throw new Error('setup failed') })
broken('never runs', () => {})
broken.run()
`,
  )
  const run = spawnSync(
    process.execPath,
    [path.join(repoRoot, 'node_modules', 'uvu', 'bin.js'), dir, '\\.test\\.js$'],
    { encoding: 'utf8', cwd: dir },
  )
  const tally = tallyUvu(run.stdout)
  assert.equal(tally, { passed: 3, failed: 3, skipped: 2, complete: true }, run.stdout)
  assert.is(summaryLine(tally), '3 passed, 3 failed, 2 skipped')
  fs.rmSync(dir, { recursive: true, force: true })
})

test.run()
