/**
 * Restricted mode's relevance guard (plugins/query/relevance.ts): the coverage signal, the
 * threshold's edges, a collection's own settings over the route's over the shipped default, and
 * the option's validation through the loader's own path (a bad value stops the route loading).
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import query from '../../../plugins/query/index.js'
import { coverage, DEFAULT_GUARD, guardFor, judgeRelevance, namesOf } from '../../../plugins/query/relevance.js'
import { loadError, setupPlugin } from '../../../bin/testing/harness.js'

const test = suite('plugin query: restricted guard')
const p = (...texts: string[]) => texts.map((text) => ({ text }))

test("coverage is the share of the question's content words found in the first passages", () => {
  // Content words: stream, replication, standby, server ("is", "to", "a" are short, "possible" a stop word).
  const q = 'Is streaming replication to a standby server possible?'
  assert.is(coverage(q, p('The server keeps a log.'), 5), 0.25)
  assert.is(coverage(q, p('The server keeps a log.', 'Replication streams to a standby.'), 5), 1)
  assert.is(coverage(q, p('The server keeps a log.', 'Replication streams to a standby.'), 1), 0.25, 'depth')
  assert.is(
    coverage('Answer the question in the recording.\n\nHow long do cats sleep?', p('Cats sleep all day.'), 5),
    2 / 3,
    'the best-covered paragraph (a realtime query: instruction, blank line, transcript)',
  )
  assert.is(coverage('How do I do it?', p('anything'), 5), 1, 'stop words only: nothing to measure')
  assert.is(coverage('How do I do it?', [], 5), 0)
})

test('the guard refuses below the threshold and when no word is shared, even at 0', async () => {
  const q = 'Is streaming replication to a standby server possible?'
  const at = (minCoverage: number) => ({ minCoverage, passages: 5, names: false })
  const none = async () => false
  const bears = async (passages: { text: string }[], min: number) =>
    (await judgeRelevance(q, passages, at(min), none)).bears
  assert.not.ok(await bears(p('The server keeps a log.'), 0.5))
  assert.ok(await bears(p('A standby server.'), 0.5), '0.5 is enough')
  assert.ok(await bears(p('The server keeps a log.'), 0))
  assert.not.ok(await bears(p('Nothing related here.'), 0))
  assert.not.ok(await bears([], 0))
})

test('names: words written with capitals where no sentence starts, or inside a word', () => {
  assert.equal(namesOf('How do I train a network on the GPU with PyTorch?'), ['gpu', 'pytorch'])
  assert.equal(namesOf("Does Oracle's CONNECT BY work here?"), ['oracle', 'connect'])
  assert.equal(namesOf('Docker images: how?'), [], 'the first word is not a name')
  assert.equal(namesOf('Where is it in the CPU-heavy case?'), ['cpu'])
  assert.equal(
    namesOf('Answer the question.\n\nHello there. Cats sleep! Really? Done: Yes, in Docker'),
    ['docker'],
    'a sentence start is not a name',
  )
  assert.equal(namesOf('how do i use pytorch'), [], 'lower case: no name check')
})

test('a name neither the passages nor the collection contain refuses, at any coverage; the collection is asked only for names the passages lack', async () => {
  const q = 'How do I train a network on the GPU with PyTorch?'
  const passages = p('To train a network on the GPU, call train() with a device.')
  const guard = { minCoverage: 0.5, passages: 5, names: true }
  const asked: string[] = []
  const lookup = (vocabulary: string[]) => async (word: string) => {
    asked.push(word)
    return vocabulary.includes(word)
  }
  const refused = await judgeRelevance(q, passages, guard, lookup([]))
  assert.equal([refused.bears, refused.missingName], [false, 'pytorch'])
  assert.equal(asked, ['pytorch'], 'gpu is in the passages')
  assert.ok((await judgeRelevance(q, passages, guard, lookup(['pytorch']))).bears, 'elsewhere in the collection')
  assert.ok((await judgeRelevance(q, passages, { ...guard, names: false }, lookup([]))).bears, 'names off')
})

test("a collection's own settings over the route's over the shipped default", () => {
  assert.equal(guardFor(undefined, 'docs'), DEFAULT_GUARD)
  const option = {
    min_coverage: 0.3,
    passages: 8,
    collections: { docs: { min_coverage: 0.7, names: false }, constructor: {} },
  }
  assert.equal(guardFor(option, 'docs'), { minCoverage: 0.7, passages: 8, names: false })
  assert.equal(guardFor(option, 'other'), { minCoverage: 0.3, passages: 8, names: true })
  assert.equal(guardFor(option, 'toString'), { minCoverage: 0.3, passages: 8, names: true }, 'not an inherited name')
  assert.equal(guardFor(option, undefined), { minCoverage: 0.3, passages: 8, names: true })
})

test('the option is validated when the route loads', async () => {
  assert.is(await loadError(() => setupPlugin(query, { restricted_guard: { min_coverage: 0.4, passages: 3 } })), '')
  assert.is(
    await loadError(() => setupPlugin(query, { restricted_guard: { collections: { docs: { min_coverage: 0.6 } } } })),
    '',
  )
  const bad: [unknown, RegExp][] = [
    [{ min_coverage: 1.5 }, /min_coverage.*<= 1/],
    [{ min_coverage: -0.1 }, /min_coverage.*>= 0/],
    [{ min_coverage: 'high' }, /min_coverage.*number/],
    [{ passages: 0 }, /passages.*>= 1/],
    [{ names: 'yes' }, /names.*boolean/],
    [{ threshold: 0.5 }, /threshold/],
    [{ collections: { docs: { min_coverage: 2 } } }, /collections.*docs.*min_coverage/],
    [{ collections: { docs: { rrf: true } } }, /rrf/],
  ]
  for (const [guard, reason] of bad) {
    const err = await loadError(() => setupPlugin(query, { restricted_guard: guard }))
    assert.match(err, /bad options/, JSON.stringify(guard))
    assert.match(err, reason, `${JSON.stringify(guard)}: ${err}`)
  }
})

test.run()
