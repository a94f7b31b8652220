import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { reclaimer } from '../../bin/idle-reclaim.js'

const test = suite('bin: memory back when idle')
const MB = 1024 * 1024

/** The reclaimer over a made-up RSS, one look per step: how often it collected here and in the thread. */
function collections(rssSteps: number[], quiet = 1): { here: number; threads: number } {
  const counts = { here: 0, threads: 0 }
  let at = 0
  const look = reclaimer(
    () => void counts.here++,
    () => [{ reclaim: () => void counts.threads++ }],
    {
      quiet,
      rss: () => rssSteps[at]! * MB,
    },
  )
  for (at = 1; at < rssSteps.length; at++) look()
  return counts
}

test('a burst that is over is collected once, here and in the threads', () => {
  assert.equal(collections([150, 150, 700, 160, 160, 160]), { here: 1, threads: 1 })
})

test('growth that stays after a collection becomes the floor: no collection again and again', () => {
  assert.equal(collections([150, 400, 400, 400, 400, 400, 400, 400]), { here: 1, threads: 1 })
  assert.equal(collections([150, 400, 400, 900, 900]), { here: 2, threads: 2 })
})

test('a floor set before the pages went back to the OS moves down with them', () => {
  // Collected at the second 500; the OS took the pages back only after the next look (a floor of
  // 500), then RSS fell to 400: a new burst to 520 is 120 over that and is collected again.
  assert.equal(collections([150, 500, 500, 500, 400, 400, 520, 520]), { here: 2, threads: 2 })
})

test('growth under the slack is left alone, and so is a busy process', () => {
  assert.equal(collections([150, 180, 200, 210, 190]), { here: 0, threads: 0 })
  assert.equal(collections([150, 700, 700, 700], -1), { here: 0, threads: 0 })
})

test.run()
