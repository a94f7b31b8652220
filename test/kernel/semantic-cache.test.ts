/**
 * The realtime route's in-memory semantic cache: a hit at or above the threshold within one
 * scope only, the best of several, the bound on entries (oldest out) and on age.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { cosine, memorySemanticCache } from '../../domains/query/semantic-cache.js'

const test = suite('kernel: semantic cache')
const v = (...xs: number[]) => Float32Array.from(xs)
const answer = (text: string) => ({ text, sources: {} })

test('cosine: 1 for the same direction, 0 for orthogonal or zero or mismatched vectors', () => {
  assert.ok(Math.abs(cosine(v(1, 2, 3), v(2, 4, 6)) - 1) < 1e-6)
  assert.is(cosine(v(1, 0), v(0, 1)), 0)
  assert.is(cosine(v(0, 0), v(1, 1)), 0)
  assert.is(cosine(v(1, 0), v(1, 0, 0)), 0)
})

test('a hit at or above the threshold, in its own scope only; the most similar of several', async () => {
  const cache = memorySemanticCache({ threshold: 0.9, maxEntries: 10, maxAgeMs: 1000, now: () => 0 })
  await cache.keep('p1', v(1, 0), answer('east'))
  await cache.keep('p1', v(0.8, 0.6), answer('north-east'))
  const hit = await cache.find('p1', v(0.9, 0.1))
  assert.is(hit?.answer.text, 'east')
  assert.ok(hit!.similarity >= 0.9)
  assert.is(await cache.find('p2', v(1, 0)), undefined, 'another scope')
  assert.is(await cache.find('p1', v(0, 1)), undefined, 'below the threshold')
})

test('bounded in entries (the oldest goes first) and in age', async () => {
  let now = 0
  const cache = memorySemanticCache({ threshold: 0.99, maxEntries: 2, maxAgeMs: 100, now: () => now })
  await cache.keep('s', v(1, 0, 0), answer('a'))
  await cache.keep('s', v(0, 1, 0), answer('b'))
  await cache.keep('s', v(0, 0, 1), answer('c'))
  assert.is(await cache.find('s', v(1, 0, 0)), undefined, 'the oldest went')
  assert.is((await cache.find('s', v(0, 1, 0)))?.answer.text, 'b')
  now = 101
  assert.is(await cache.find('s', v(0, 0, 1)), undefined, 'too old')
})

test.run()
