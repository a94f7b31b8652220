/**
 * The server's Node flags (docs/decisions.md, "A young generation of fixed size" and "The server starts
 * without `--enable-source-maps`"): `npm start`,
 * `npm run start:prod`, the Dockerfile and the systemd unit start node with the same flags, and
 * this Node takes them: the young generation starts at its full size instead of growing (and
 * shrinking again while idle).
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { repoRoot } from '../../kernel/contract/paths.js'

const test = suite('server node flags')
const read = (file: string) => fs.readFileSync(path.join(repoRoot, file), 'utf8')
const flagsOf = (words: string[]) => words.filter((w) => w.startsWith('--'))

const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts
const shipped = flagsOf(scripts.start!.split(/\s+/))

test('npm start, start:prod, the Dockerfile and the systemd unit carry the same flags', () => {
  assert.ok(shipped.includes('--min-semi-space-size=16'), scripts.start)
  assert.ok(shipped.includes('--expose-gc'), scripts.start)
  // Source maps tipped a loaded gateway into promoting its requests (decisions.md): not in a server's start.
  assert.not.ok(shipped.includes('--enable-source-maps'), scripts.start)
  assert.equal(flagsOf(scripts['start:prod']!.split(/\s+/)), shipped)
  const cmd = /^CMD (\[.*\])$/m.exec(read('deploy/Dockerfile'))
  assert.ok(cmd, 'the Dockerfile has a CMD in exec form')
  assert.equal(flagsOf(JSON.parse(cmd[1]!) as string[]), shipped)
  // The allocator's setting (decisions.md, "Large allocations mapped apart") travels with the flags.
  const setting = 'MALLOC_MMAP_THRESHOLD_=131072'
  assert.ok(scripts.start!.startsWith(`${setting} node `), scripts.start)
  assert.ok(scripts['start:prod']!.startsWith(`${setting} node `), scripts['start:prod'])
  assert.ok(read('deploy/Dockerfile').includes(`    ${setting}\n`), 'the Dockerfile sets it')
  assert.ok(read('deploy/sluice.service').includes(`Environment=${setting}\n`), 'the unit sets it')
  const exec = /^ExecStart=(.*)$/m.exec(read('deploy/sluice.service'))
  assert.ok(exec, 'the unit has an ExecStart')
  assert.equal(flagsOf(exec[1]!.split(/\s+/)), shipped)
})

test('this Node takes the flags: the young generation starts at 16 MB instead of 1 MB', () => {
  const newSpace = (flags: string[]) =>
    Number(
      execFileSync(
        process.execPath,
        [
          ...flags,
          '-e',
          "process.stdout.write(String(require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size))",
        ],
        { encoding: 'utf8' },
      ),
    )
  assert.ok(newSpace(shipped) >= 16 * 1024 * 1024, `new space with ${shipped.join(' ')}: ${newSpace(shipped)}`)
  assert.ok(
    newSpace([]) < 16 * 1024 * 1024,
    'without the flags the young generation starts small (else the test proves nothing)',
  )
})

test.run()
