/**
 * fusion.ts and advanced_rag's merge, as pure functions: the settings' precedence, the legs'
 * agreement scaling the vector weight, convex against RRF, and the original query's hits
 * keeping their places when variants add theirs.
 */
import { scoredChunk } from '../../../support/scored-chunk.js'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  agreement,
  DEFAULT_FUSION,
  fuseLegs,
  resolveFusion,
  type Fusion,
} from '../../../../domains/query/knowledge/fusion.js'
import { withVariants } from '../../../../domains/query/knowledge/retrieve.js'
import type { ScoredChunk } from '../../../../domains/query/knowledge/store.js'

const test = suite('fusion')
const hit = (id: number, score = 0) => scoredChunk(id, score)
const ids = (hits: readonly ScoredChunk[]) => hits.map((h) => h.id)
const list = (...xs: number[]) => xs.map((id, i) => hit(id, xs.length - i))

test('resolveFusion: the first layer that sets a field wins; `score` is convex; the rest from DEFAULT_FUSION', () => {
  const f = resolveFusion({ lexicalWeight: 3 }, { method: 'rrf', lexicalWeight: 1, k: 10 }, { method: 'score' })
  assert.equal(f, { ...DEFAULT_FUSION, method: 'rrf', k: 10, lexicalWeight: 3 })
  assert.is(resolveFusion({ method: 'score' }).method, 'convex')
  assert.equal(resolveFusion(), DEFAULT_FUSION)
})

test('agreement: the share of the vector head that the lexical leg returned', () => {
  assert.is(agreement(list(1, 2, 3), list(3, 9, 1, 8)), 0.5)
  assert.is(agreement(list(1), []), 0)
  assert.is(agreement([], list(1)), 0)
})

test('adaptive: a vector leg that agrees with nothing leaves the lexical order as it is', () => {
  const lexical = list(1, 2, 3, 4)
  const vector = list(9, 8, 7, 4, 3)
  for (const method of ['rrf', 'convex'] as const) {
    const f: Fusion = { ...DEFAULT_FUSION, method, adaptive: true }
    // No agreement at all: the lexical list first, in order, the vector's hits after it.
    assert.equal(ids(fuseLegs(list(1, 2, 3), list(9, 8), f)), [1, 2, 3, 8, 9], method)
    // Without adaptation, the same vector leg lifts its own hits into the lexical head.
    const fixed = fuseLegs(lexical, vector, { ...f, adaptive: false, lexicalWeight: 1, vectorWeight: 1 })
    assert.ok(ids(fixed).indexOf(9) < ids(fixed).indexOf(2), `${method}: ${ids(fixed)}`)
  }
})

test('convex keeps how far ahead a hit is; RRF flattens it', () => {
  const lexical = [hit(1, 10), hit(2, 1.1), hit(3, 1)]
  const vector = [hit(2, 0.9), hit(4, 0.895), hit(1, 0.89), hit(3, 0.5)]
  const f = { ...DEFAULT_FUSION, adaptive: false, lexicalWeight: 1, vectorWeight: 1 }
  assert.is(ids(fuseLegs(lexical, vector, { ...f, method: 'convex' }))[0], 1)
  assert.is(ids(fuseLegs(lexical, vector, { ...f, method: 'rrf' }))[0], 2)
})

test('an empty lexical leg leaves the vector list as it ranks', () => {
  assert.equal(ids(fuseLegs([], list(5, 4, 6), DEFAULT_FUSION)), [5, 4, 6])
})

test('advanced_rag: the original head keeps its places; the tail keeps its order and alternates with new hits', () => {
  const original = list(1, 2, 3, 4, 5, 6)
  const variants = [list(7, 1, 8), list(8, 2, 9)]
  const merged = ids(withVariants(original, variants, 6))
  assert.equal(merged, [1, 2, 3, 4, 8, 5])
  // Every original hit that stays is in its original order, and the head is untouched.
  assert.equal(merged.slice(0, 3), [1, 2, 3])
  const kept = merged.filter((id) => id <= 6)
  assert.equal(
    kept,
    [...kept].sort((a, b) => a - b),
  )
  // A short original list: the variants fill the rest.
  assert.equal(ids(withVariants(list(1), variants, 4)), [1, 8, 7, 2])
})

test.run()
