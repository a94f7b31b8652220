import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { confidenceOf, expectedLevel, labelMass, scoreMass } from '../../../plugins/verdicts/scoring.js'
import { LabelReader, foldToken, labelsFor } from '../../../plugins/verdicts/labels.js'

const test = suite('verdicts: scoring arithmetic and labels')

const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0)
const near = (a: number, b: number, eps = 1e-12) => assert.ok(Math.abs(a - b) <= eps, `${a} ≈ ${b}`)

test('variants of one label (case, leading space, SentencePiece ▁) are added together', () => {
  const reader = new LabelReader(labelsFor('boolean', 2))
  const mass = labelMass(
    [
      { token: 'Yes', logprob: Math.log(0.5) },
      { token: ' Yes', logprob: Math.log(0.2) },
      { token: 'yes', logprob: Math.log(0.05) },
      { token: '▁YES', logprob: Math.log(0.05) },
      { token: 'No', logprob: Math.log(0.1) },
      { token: 'Yesterday', logprob: Math.log(0.05) },
    ],
    reader,
  )
  near(mass[1]!, 0.8)
  near(mass[0]!, 0.1)
})

test('the chosen token listed again among the top logprobs counts once', () => {
  const reader = new LabelReader(['A', 'B'])
  const mass = labelMass(
    [
      { token: 'A', logprob: Math.log(0.6) },
      { token: 'A', logprob: Math.log(0.6) },
      { token: 'B', logprob: Math.log(0.3) },
    ],
    reader,
  )
  near(mass[0]!, 0.6)
})

test('probabilities sum to 1, and an answer outside the top 20 gets exactly 0', () => {
  const reader = new LabelReader(labelsFor('choice', 4))
  const scored = scoreMass(
    labelMass(
      [
        { token: 'B', logprob: Math.log(0.7) },
        { token: ' a', logprob: Math.log(0.2) },
        { token: 'D', logprob: -9999 },
      ],
      reader,
    ),
  )!
  near(sum(scored.probabilities), 1)
  assert.is(scored.probabilities[2], 0, 'C was not among the top tokens')
  assert.is(scored.probabilities[3], 0, "vLLM's -inf (-9999.0) is 0")
  assert.ok(Object.is(scored.probabilities[2], 0))
  assert.is(scored.best, 1)
  near(scored.probabilities[1]!, 0.7 / 0.9)
  near(scored.validMass, 0.9)
})

test('no label among the top tokens: nothing to score', () => {
  const reader = new LabelReader(['No', 'Yes'])
  assert.is(
    scoreMass(
      labelMass(
        [
          { token: 'The', logprob: -0.1 },
          { token: 'Based', logprob: -2 },
        ],
        reader,
      ),
    ),
    undefined,
  )
})

test('confidence is 0 for a uniform distribution, whatever the mass on labels', () => {
  for (const n of [2, 3, 7, 26]) {
    const mass = new Array<number>(n).fill(0.9 / n)
    const scored = scoreMass(mass)!
    assert.is(scored.confidence, 0, `n = ${n}`)
  }
  assert.is(confidenceOf([0.5, 0.5], 1), 0)
})

test('confidence is 1 when the model is decisive and all probability is on labels', () => {
  assert.is(scoreMass([0, 1, 0])!.confidence, 1)
  assert.is(confidenceOf([1, 0], 1), 1)
  // Decisive, but a tenth of the probability went to tokens that are no label.
  near(scoreMass([0, 0.9])!.confidence, 0.9)
  // Between the ends: 1 − H/ln 2 for (0.1, 0.9).
  const h = -(0.1 * Math.log(0.1) + 0.9 * Math.log(0.9))
  near(scoreMass([0.1, 0.9])!.confidence, 1 - h / Math.log(2))
})

test('expected value is the probability-weighted level counting from 1', () => {
  near(expectedLevel([1, 0, 0]), 1)
  near(expectedLevel([0, 0, 1]), 3)
  near(expectedLevel([0.25, 0.5, 0.25]), 2)
  near(expectedLevel([0.5, 0, 0, 0.5]), 2.5)
})

test('a tie goes to the earlier answer', () => {
  assert.is(scoreMass([0.4, 0.4, 0.2])!.best, 0)
})

test('labels: No/Yes, letters for choices, digits from 1 (or from 0 for ten levels)', () => {
  assert.equal(labelsFor('boolean', 2), ['No', 'Yes'])
  assert.equal(labelsFor('choice', 3), ['A', 'B', 'C'])
  assert.is(labelsFor('choice', 26).join(''), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ')
  assert.equal(labelsFor('score', 5), ['1', '2', '3', '4', '5'])
  assert.equal(labelsFor('score', 9), ['1', '2', '3', '4', '5', '6', '7', '8', '9'])
  assert.equal(labelsFor('score', 10), ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'])
  assert.is(foldToken(' yes'), 'YES')
  assert.is(foldToken('Ġb'), 'B')
  assert.is(foldToken('Yes '), 'YES ', 'only leading space is folded')
})

test.run()
