import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { nearestLevel, parseEffort } from '../../protocols/openai/reasoning-effort.js'

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

test.run()
