import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { nearestLevel, parseEffort } from '../../protocols/openai/reasoning-effort.js'
import { GatewayError } from '../../kernel/contract/errors.js'

const test = suite('kernel reasoning levels')

test('nearest level: exact, nearer, ties go lower', () => {
  assert.is(nearestLevel('high', ['none', 'high']), 'high')
  assert.is(nearestLevel('medium', ['none', 'high']), 'high')
  assert.is(nearestLevel('low', ['none', 'high']), 'none')
  assert.is(nearestLevel('medium', ['low', 'high']), 'low')
  assert.is(nearestLevel('none', ['low', 'medium', 'high']), 'low')
})

test('parseEffort: omitted and null are undefined', () => {
  assert.is(parseEffort(undefined), undefined)
  assert.is(parseEffort(null), undefined)
  assert.is(parseEffort('max'), 'high')
})

test('parseEffort: names of Object.prototype are no level, 400 (the fuzzer found `constructor` taken as one: 404 "model sim-chat is not registered")', () => {
  for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
    assert.throws(
      () => parseEffort(name),
      (err: Error) =>
        err instanceof GatewayError &&
        err.status === 400 &&
        err.message === `reasoning effort ${name} is not one of none, low, medium or high`,
      name,
    )
  }
})

test.run()
