import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { reclaimer } from '../../bin/idle-reclaim.js'

const test = suite('bin: memory back when idle')
const MB = 1024 * 1024

/** The reclaimer over a made-up RSS, one look per step: how often it collected here and in the thread, and compacted. */
function collections(rssSteps: number[], quiet = 1): { here: number; threads: number; compacted: number } {
  const counts = { here: 0, threads: 0, compacted: 0 }
  let at = 0
  const look = reclaimer(
    () => void counts.here++,
    () => [{ reclaim: () => void counts.threads++ }],
    {
      quiet,
      rss: () => rssSteps[at]! * MB,
    },
    () => void counts.compacted++,
  )
  for (at = 1; at < rssSteps.length; at++) look()
  return counts
}

test('a burst that is over is collected once, here and in the threads', () => {
  assert.equal(collections([150, 150, 700, 160, 160, 160]), { here: 1, threads: 1, compacted: 0 })
})

test('growth still there at the look after a collection is compacted once', () => {
  assert.equal(collections([150, 700, 500, 230, 230, 230]), { here: 1, threads: 1, compacted: 1 })
})

test('growth that stays after a collection becomes the floor: no collection again and again', () => {
  assert.equal(collections([150, 400, 400, 400, 400, 400, 400, 400]), { here: 1, threads: 1, compacted: 1 })
  assert.equal(collections([150, 400, 400, 400, 900, 900]), { here: 2, threads: 2, compacted: 2 })
})

test('a floor set before the pages went back to the OS moves down with them', () => {
  // Collected at the first 500, compacted at the second, a floor of 500 at the third; the OS
  // took the pages back after it, to 400: a new burst to 520 is 120 over that, collected again.
  assert.equal(collections([150, 500, 500, 500, 400, 400, 520, 520]), { here: 2, threads: 2, compacted: 2 })
})

test('growth under the slack is left alone, and so is a busy process', () => {
  assert.equal(collections([150, 180, 200, 210, 190]), { here: 0, threads: 0, compacted: 0 })
  assert.equal(collections([150, 700, 700, 700], -1), { here: 0, threads: 0, compacted: 0 })
})

test.run()
