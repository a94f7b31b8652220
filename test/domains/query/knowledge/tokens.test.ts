/**
 * The local token count: words and sentences by cl100k_base exactly; runs of more than 64
 * characters without a space (base64, long URLs, a hostile query of one repeated letter) by an
 * estimate of one token per three bytes, which is what keeps the count's time linear.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { countTokens } from '../../../../domains/query/knowledge/tokens.js'

const test = suite('knowledge token count')

test('ordinary text is counted by cl100k_base', () => {
  assert.is(countTokens('hello world, this is a normal sentence.'), 9)
  assert.is(countTokens(''), 0)
  assert.is(countTokens('a'.repeat(64)), 8, 'a 64-letter run is still encoded')
})

test('a run of more than 64 non-space characters is estimated at one token per three bytes', () => {
  assert.is(countTokens('a'.repeat(300)), 100)
  assert.is(countTokens('é'.repeat(300)), 200, 'bytes, not characters')
  assert.is(countTokens(`hello ${'x'.repeat(90)} world`), countTokens('hello ') + 30 + countTokens(' world'))
  // A quarter of a million letters is counted, not left to byte-pair encoding.
  assert.is(countTokens('a'.repeat(254_000)), Math.ceil(254_000 / 3))
})

test.run()
