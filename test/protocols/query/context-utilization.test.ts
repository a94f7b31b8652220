/** Context utilization as RAGAS scores it: average precision of usefulness verdicts over the ranks. */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { averagePrecision } from '../../../protocols/query/context-utilization.js'

const test = suite('protocols/query: context utilization (average precision)')

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-12, `${a} ≈ ${b}`)

test('every context useful: 1', () => close(averagePrecision([true, true, true]), 1))
test('no context useful: 0 (RAGAS: 0 / (0 + 1e-10))', () => assert.is(averagePrecision([false, false]), 0))
test('no contexts at all: 0', () => assert.is(averagePrecision([]), 0))

test('useful contexts ranked first score higher than the same ones ranked last', () => {
  close(averagePrecision([true, false, false]), 1)
  close(averagePrecision([false, false, true]), 1 / 3)
  assert.ok(averagePrecision([true, true, false]) > averagePrecision([false, true, true]))
})

test('the RAGAS worked example: [1, 0, 1] → (1/1 + 2/3) / 2', () =>
  close(averagePrecision([true, false, true]), (1 + 2 / 3) / 2))

test.run()
