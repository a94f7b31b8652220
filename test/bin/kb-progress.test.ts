/**
 * The TTY form of the bulk loader's progress (the e2e suite sees only the plain form): one
 * line redrawn with `\r`, counting files and chunks, with rate and ETA from a fake clock,
 * and a failure printed on its own line above the bar.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createProgress, formatSeconds } from '../../bin/kb/progress.js'

const test = suite('kb progress')

test('the bar redraws in place with files, chunks, rate and ETA', () => {
  let written = ''
  let clock = 0
  const p = createProgress({ write: (t: string) => (written += t), columns: 200 }, true, () => clock)
  p.start(4)
  clock = 2000
  p.file({ sourceName: 'a.md', status: 'loaded', chunks: 3 })
  const last = written.split('\r').pop()!
  assert.match(last, /\] 1\/4 files {2}3 chunks {2}0\.5 files\/s {2}ETA 6s/)
  clock = 4000
  p.file({ sourceName: 'b.pdf', status: 'failed', chunks: 0, reason: '400 the PDF could not be read' })
  assert.match(written, /\r\x1b\[Kb\.pdf: failed: 400 the PDF could not be read\n/)
  assert.match(written.split('\r').pop()!, /2\/4 files .* 1 failed/)
  p.end()
  assert.ok(written.endsWith('\n'))
})

test('the plain form writes one line per file', () => {
  const lines: string[] = []
  const p = createProgress({ write: (t: string) => lines.push(t) }, false)
  p.start(2)
  p.file({ sourceName: 'a.md', status: 'replaced', chunks: 1 })
  p.file({ sourceName: 'b.txt', status: 'failed', chunks: 0, reason: 'boom' })
  p.end()
  assert.equal(lines, ['[1/2] a.md: replaced, 1 chunk\n', '[2/2] b.txt: failed: boom\n'])
})

test('formatSeconds', () => {
  assert.is(formatSeconds(Infinity), '--')
  assert.is(formatSeconds(42.4), '42s')
  assert.is(formatSeconds(125), '2m05s')
})

test.run()
