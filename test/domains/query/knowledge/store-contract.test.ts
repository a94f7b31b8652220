/**
 * The knowledge store contract, run against SQLite (sqlite-vec), the real PostgreSQL (exact
 * scoring of real[] arrays: the server has no pgvector) and PGlite with pgvector over the wire
 * protocol. Same tests, same expectations. The filters here are hand-made CompiledFilters; the
 * filter compiler has its own suite.
 */
import { scoredChunk } from '../../../support/scored-chunk.js'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { GatewayError } from '../../../../kernel/contract/errors.js'
import type { CompiledFilter, FilterColumns } from '../../../../domains/query/knowledge/model.js'
import type { EmbeddedChunk, KnowledgeStore, ScoredChunk } from '../../../../domains/query/knowledge/store.js'
import { fuseConvex as fuseScores } from '../../../../domains/query/knowledge/fusion.js'
import {
  fuse,
  retrieveChunks,
  retrieveDocuments,
  retrieveNeighbors,
  search,
} from '../../../../domains/query/knowledge/retrieve.js'
import {
  pgliteTestKnowledge,
  postgresTestKnowledge,
  sqliteTestKnowledge,
  type TestKnowledge,
} from '../../../support/knowledge-stores.js'
import { suiteNeeding } from '../../../support/needs-server.js'
import type { Server } from '../../../support/services.js'

const P = 'project-one'
const C = 'docs'

const vec = (...v: number[]) => new Float32Array(v)
const chunk = (
  index: number,
  content: string,
  embedding: Float32Array,
  over: Partial<EmbeddedChunk> = {},
): EmbeddedChunk => ({ index, content, embedding, headingPath: ['Guide'], tokens: content.split(' ').length, ...over })

const A = [
  chunk(0, 'Install the gateway on Debian with apt', vec(1, 0, 0)),
  chunk(1, 'Configure the pipelines in YAML files', vec(0.9, 0.1, 0)),
  chunk(2, 'Start the server and watch the logs', vec(0.5, 0.5, 0)),
  chunk(3, 'Tune the queue for fairness', vec(0, 1, 0)),
]
const B = [
  chunk(0, 'Kittens sleep on warm rugs', vec(0, 0, 1), { pageNumber: 7 }),
  chunk(1, 'The gateway gateway gateway answers', vec(0.99, 0.02, 0), { pageNumber: 8 }),
]

/** A condition in the store's own dialect: `?` for SQLite, `$n` for PostgreSQL. */
const filter =
  (sql: (c: FilterColumns, p: string) => string, ...params: unknown[]): CompiledFilter =>
  (c, n) => ({ sql: sql(c, c.dialect === 'sqlite' ? '?' : `$${n}`), params })
const onlyA = filter((c, p) => `${c.sourceName} = ${p}`, 'a.md')
const likeA = filter((c, p) => `${c.sourceName} LIKE ${p}`, 'a%')
const taggedRed = (c: FilterColumns, n: number) =>
  c.dialect === 'sqlite'
    ? { sql: `EXISTS (SELECT 1 FROM json_each(${c.tags}) WHERE value = ?)`, params: ['red'] }
    : { sql: `${c.tags} @> $${n}::jsonb`, params: ['["red"]'] }
const page7 = filter((c, p) => `${c.pageNumber} = ${p}`, 7)

const contents = (hits: readonly { content: string }[]) => hits.map((h) => h.content)
const cosine = (a: Float32Array, b: Float32Array) => {
  let d = 0,
    na = 0,
    nb = 0
  for (let i = 0; i < a.length; i++) {
    d += a[i]! * b[i]!
    na += a[i]! ** 2
    nb += b[i]! ** 2
  }
  return d / Math.sqrt(na * nb)
}

async function rejects(work: Promise<unknown>): Promise<GatewayError> {
  try {
    await work
  } catch (err) {
    assert.instance(err, GatewayError)
    return err as GatewayError
  }
  throw new assert.Assertion({
    message: 'expected a rejection',
    operator: 'rejects',
    expects: 'rejection',
    actual: 'resolved',
  })
}

function knowledgeContract(
  label: string,
  vectors: KnowledgeStore['vectors'],
  needs: readonly Server[],
  open: () => Promise<TestKnowledge | undefined>,
): void {
  const test = suiteNeeding(needs, `knowledge store contract: ${label}`)
  let opened: TestKnowledge | undefined
  test.before(async () => {
    opened = await open()
    assert.ok(opened, `the ${label} store opened`)
    await opened.store.createCollection(P, C, { dimension: 3 })
    await opened.store.upsertDocument(
      P,
      C,
      { sourceName: 'a.md', url: 'https://example.org/a', tags: ['red'], metadata: { lang: 'en' } },
      A,
    )
    await opened.store.upsertDocument(P, C, { sourceName: 'b.md', tags: ['blue'] }, B)
  })
  test.after(async () => {
    await opened?.store.close()
    await opened?.cleanup()
  })
  const it = (name: string, fn: (store: KnowledgeStore, log: string[]) => Promise<void>) =>
    test(name, () => fn(opened!.store, opened!.log))

  it('opens with the expected vector path, and says which in its log', async (store, log) => {
    assert.is(store.vectors, vectors)
    assert.ok(
      log.some((l) => l.includes(vectors === 'exact' ? 'scored exactly' : vectors)),
      log.join('\n'),
    )
  })

  it('collections: listed per project with their counts; a second of the same name is a 409', async (store) => {
    const list = await store.listCollections(P)
    assert.equal(
      list.map((c) => [c.name, c.dimension, c.documents, c.chunks]),
      [[C, 3, 2, 6]],
    )
    assert.is((await rejects(store.createCollection(P, C, { dimension: 3 }))).status, 409)
    assert.is((await rejects(store.createCollection(P, 'bad', { dimension: 0 }))).status, 400)
  })

  it('documents: listed with their fields and chunk counts', async (store) => {
    const docs = await store.listDocuments(P, C)
    assert.equal(
      docs.map((d) => [d.sourceName, d.url, d.tags, d.metadata, d.chunks]),
      [
        ['a.md', 'https://example.org/a', ['red'], { lang: 'en' }, 4],
        ['b.md', null, ['blue'], {}, 2],
      ],
    )
  })

  it('vector: KNN in order of cosine similarity, scores are 1 − distance', async (store) => {
    const q = vec(1, 0.05, 0)
    const hits = await store.vector(P, C, q, 4)
    const expected = [...A, ...B].sort((x, y) => cosine(q, y.embedding) - cosine(q, x.embedding)).slice(0, 4)
    assert.equal(contents(hits), contents(expected))
    hits.forEach((h, i) => assert.ok(Math.abs(h.score - cosine(q, expected[i]!.embedding)) < 1e-3, `score ${h.score}`))
    assert.equal(hits[0]!.headingPath, ['Guide'])
  })

  it('lexical: ranks by the query words, stems them, and treats operators as words', async (store) => {
    const hits = await store.lexical(P, C, 'gateway', 10)
    assert.equal(contents(hits), ['The gateway gateway gateway answers', 'Install the gateway on Debian with apt'])
    assert.ok(hits[0]!.score > hits[1]!.score)
    assert.equal(contents(await store.lexical(P, C, 'kitten rug', 10)), ['Kittens sleep on warm rugs'])
    // FTS and tsquery syntax in user text is only words: no error, no operator.
    for (const q of [
      'gateway" OR NOT "x*',
      'NEAR(gateway logs) ^col: -',
      'gateway & !logs | (',
      "'; DROP TABLE kb_chunks; --",
    ])
      await store.lexical(P, C, q, 5)
    assert.equal(await store.lexical(P, C, '"*"()', 5), [])
  })

  it('lexical: stop words neither match nor rank; a query of stop words only finds nothing, cleanly', async (store) => {
    // "the" is in four chunks: it used to make all of them hits.
    assert.equal(contents(await store.lexical(P, C, 'the kittens', 10)), ['Kittens sleep on warm rugs'])
    assert.equal(contents(await store.lexical(P, C, 'How do I tune THE queue?', 10)), ['Tune the queue for fairness'])
    for (const q of ['the', 'What is the', 'to be or not to be', "don't"])
      assert.equal(await store.lexical(P, C, q, 5), [], q)
    // In a hybrid search such a query leaves the vector leg to answer alone.
    const hybrid = await search(store, {
      project: P,
      collection: C,
      topK: 2,
      query: 'what is the',
      embedding: vec(0.1, 0.3, 1),
    })
    assert.equal(contents(hybrid), ['Kittens sleep on warm rugs', 'Tune the queue for fairness'])
  })

  it("lexical: only the asked collection's chunks, however many better matches another holds", async (store) => {
    await store.createCollection(P, 'crowd', { dimension: 3 })
    const crowd = Array.from({ length: 60 }, (_, i) =>
      chunk(i, `gateway gateway gateway fairness queue ${i}`, vec(1, 0, 0)),
    )
    await store.upsertDocument(P, 'crowd', { sourceName: 'crowd.md', tags: ['red'] }, crowd)
    // The two stores rank differently (bm25, ts_rank_cd): the set is the promise here.
    assert.equal(contents(await store.lexical(P, C, 'gateway queue', 5)).sort(), [
      'Install the gateway on Debian with apt',
      'The gateway gateway gateway answers',
      'Tune the queue for fairness',
    ])
    const filtered = await store.lexical(P, C, 'the gateway', 5, taggedRed)
    assert.equal(contents(filtered), ['Install the gateway on Debian with apt'])
    assert.is((await store.lexical(P, 'crowd', 'gateway', 100)).length, 60)
    await store.deleteCollection(P, 'crowd')
  })

  // The real PostgreSQL only: SQLite ranks every match (bm25 weighs rarity itself); PGlite's helper runs no SQL beside its socket.
  if (needs.includes('postgres'))
    test('lexical, PostgreSQL with statistics: only chunks holding a rarer word are candidates, ranked by every word', async () => {
      assert.ok(opened?.sql, 'the real PostgreSQL runs SQL beside the store')
      const { store } = opened
      await store.createCollection(P, 'common', { dimension: 3 })
      const plain = Array.from({ length: 30 }, (_, i) => chunk(i, `alpha beta filler ${i}`, vec(1, 0, 0)))
      await store.upsertDocument(P, 'common', { sourceName: 'c.md' }, [...plain, chunk(30, 'alpha zeta', vec(0, 1, 0))])
      await opened.sql('ANALYZE kb_chunks')
      // alpha is in more than a fifth of the table's chunks: it ranks, but a chunk needs zeta to be a hit.
      assert.equal(contents(await store.lexical(P, 'common', 'alpha zeta', 40)), ['alpha zeta'])
      // Only common words: they all pick candidates, as before.
      assert.is((await store.lexical(P, 'common', 'alpha beta', 40)).length, 31)
      await store.deleteCollection(P, 'common')
    })

  it('filters apply inside both legs: a filtered-out chunk never comes back, even as the best match', async (store) => {
    const q = vec(0.99, 0.02, 0) // exactly b.md's second chunk
    assert.is((await store.vector(P, C, q, 1))[0]!.sourceName, 'b.md')
    for (const f of [onlyA, likeA, taggedRed]) {
      const v = await store.vector(P, C, q, 3, f)
      assert.equal(contents(v), contents(A.slice(0, 3)))
      const l = await store.lexical(P, C, 'gateway', 5, f)
      assert.equal(contents(l), ['Install the gateway on Debian with apt'])
    }
    // A selective filter: fewer matching chunks than k, found however far they rank.
    assert.equal(contents(await store.vector(P, C, vec(1, 0, 0), 3, page7)), ['Kittens sleep on warm rugs'])
    assert.equal(await store.lexical(P, C, 'gateway', 5, page7), [])
  })

  it('upsert replaces a document atomically: a failing write mid-document leaves the old chunks', async (store) => {
    await store.createCollection(P, 'atomic', { dimension: 3 })
    await store.upsertDocument(P, 'atomic', { sourceName: 'x.md' }, [
      chunk(0, 'original alpha text', vec(1, 0, 0)),
      chunk(1, 'original beta text', vec(0, 1, 0)),
    ])
    const broken = [
      chunk(0, 'replacement gamma', vec(1, 0, 0)),
      chunk(1, 'replacement delta', vec(0, 1, 0), { tokens: -1 }),
    ]
    await store.upsertDocument(P, 'atomic', { sourceName: 'x.md', tags: ['new'] }, broken).then(
      () => assert.unreachable('a negative token count must fail the write'),
      () => undefined,
    )
    const docs = await store.listDocuments(P, 'atomic')
    assert.equal(
      docs.map((d) => [d.sourceName, d.tags, d.chunks]),
      [['x.md', [], 2]],
    )
    assert.equal(contents(await store.lexical(P, 'atomic', 'original replacement', 5)).sort(), [
      'original alpha text',
      'original beta text',
    ])
    assert.equal(contents(await store.vector(P, 'atomic', vec(1, 0, 0), 5)).sort(), [
      'original alpha text',
      'original beta text',
    ])

    await store.upsertDocument(P, 'atomic', { sourceName: 'x.md' }, [chunk(0, 'replacement gamma', vec(0, 0, 1))])
    assert.equal(contents(await store.lexical(P, 'atomic', 'original replacement', 5)), ['replacement gamma'])
    assert.equal(contents(await store.vector(P, 'atomic', vec(1, 0, 0), 5)), ['replacement gamma'])
    assert.equal((await store.getCollection(P, 'atomic')).chunks, 1)
  })

  it("isolation: another project's collection answers exactly like a missing one", async (store) => {
    const other = 'project-two'
    const missing = await rejects(store.getCollection(other, 'nothing-here'))
    const theirs = await rejects(store.getCollection(other, C))
    assert.is(theirs.status, 404)
    assert.is(theirs.status, missing.status)
    assert.is(theirs.message, missing.message.replace('nothing-here', C))
    for (const work of [
      () => store.listDocuments(other, C),
      () => store.lexical(other, C, 'gateway', 5),
      () => store.vector(other, C, vec(1, 0, 0), 5),
      () => store.upsertDocument(other, C, { sourceName: 'z.md' }, []),
      () => store.deleteDocument(other, C, 'a.md'),
      () => store.deleteCollection(other, C),
      () => store.neighbors(other, C, [1], 1),
      () => store.documentChunks(other, C, [1]),
    ]) {
      const err = await rejects(work())
      assert.is(err.status, 404)
      assert.is(err.message, theirs.message)
    }
    assert.equal(await store.listCollections(other), [])
    // The other project may use the same name for its own collection, of another size.
    await store.createCollection(other, C, { dimension: 2 })
    assert.equal(await store.vector(other, C, vec(1, 0), 5), [])
    assert.is((await store.listDocuments(P, C)).length, 2, 'the first project still has its documents')
    // Chunk ids of another collection are not reachable through one's own.
    const ids = (await store.vector(P, C, vec(1, 0, 0), 2)).map((h) => h.id)
    assert.equal(await store.neighbors(other, C, ids, 2), [])
  })

  it('dimension mismatch: a clear 400 naming both sizes, for writes and for queries', async (store) => {
    const write = await rejects(
      store.upsertDocument(P, C, { sourceName: 'c.md' }, [chunk(0, 'four dims', vec(1, 0, 0, 0))]),
    )
    assert.is(write.status, 400)
    assert.match(write.message, /4 dimensions; collection "docs" holds 3-dimensional/)
    const query = await rejects(store.vector(P, C, vec(1, 0), 5))
    assert.is(query.status, 400)
    assert.match(query.message, /query embedding has 2 dimensions/)
    assert.is((await store.listDocuments(P, C)).length, 2)
  })

  it('deleting a collection removes its documents, chunks and vectors', async (store) => {
    await store.createCollection(P, 'gone', { dimension: 3 })
    await store.upsertDocument(P, 'gone', { sourceName: 'g.md' }, [chunk(0, 'ephemeral words', vec(1, 0, 0))])
    await store.deleteCollection(P, 'gone')
    assert.is((await rejects(store.getCollection(P, 'gone'))).status, 404)
    await store.createCollection(P, 'gone', { dimension: 3 })
    assert.equal(await store.vector(P, 'gone', vec(1, 0, 0), 5), [])
    assert.equal(await store.lexical(P, 'gone', 'ephemeral', 5), [])
    assert.equal((await store.getCollection(P, 'gone')).chunks, 0)
    await store.deleteCollection(P, 'gone')
  })

  it('deleting a document removes its chunks from both legs', async (store) => {
    await store.createCollection(P, 'docdel', { dimension: 3 })
    await store.upsertDocument(P, 'docdel', { sourceName: 'k.md' }, [chunk(0, 'kept words', vec(0, 1, 0))])
    await store.upsertDocument(P, 'docdel', { sourceName: 'd.md' }, [chunk(0, 'dropped words', vec(1, 0, 0))])
    await store.deleteDocument(P, 'docdel', 'd.md')
    assert.equal(contents(await store.lexical(P, 'docdel', 'words', 5)), ['kept words'])
    assert.equal(contents(await store.vector(P, 'docdel', vec(1, 0, 0), 5)), ['kept words'])
    assert.is((await rejects(store.deleteDocument(P, 'docdel', 'd.md'))).status, 404)
  })

  it('hybrid: RRF over both legs, with leg weights', async (store) => {
    // RRF with fixed weights (the default is convex, scaled by agreement: fusion.test.ts).
    const rrf = { method: 'rrf', adaptive: false } as const
    const base = { project: P, collection: C, topK: 3, query: 'kittens', embedding: vec(1, 0, 0), fusion: rrf }
    const both = await search(store, base)
    // Kittens: rank 1 of the lexical leg and last of the vector leg (1/61 + 1/66) beats the
    // vector leg's best, which the lexical leg does not find (1/61).
    assert.equal(contents(both).slice(0, 2), ['Kittens sleep on warm rugs', 'Install the gateway on Debian with apt'])
    const vectorOnly = await search(store, { ...base, fusion: { ...rrf, lexicalWeight: 0 } })
    assert.equal(contents(vectorOnly), contents(await store.vector(P, C, base.embedding, 3)))
    // With k = 1 and half weight on the lexical leg: 0.5/2 + 1/7 < 1/2.
    const heavyVector = await search(store, { ...base, fusion: { ...rrf, k: 1, lexicalWeight: 0.5 } })
    assert.is(heavyVector[0]!.content, 'Install the gateway on Debian with apt')
    const filtered = await search(store, { ...base, query: 'gateway', embedding: vec(0.99, 0.02, 0), filter: onlyA })
    assert.not.ok(filtered.some((h) => h.sourceName === 'b.md'))
  })

  it('retrieval types: chunk, document (whole or within a budget), neighbor (merged, hits rank)', async (store) => {
    const req = { project: P, collection: C, topK: 2, embedding: vec(1, 0, 0) }
    assert.equal(contents(await retrieveChunks(store, req)), [
      'Install the gateway on Debian with apt',
      'The gateway gateway gateway answers',
    ])

    const docs = await retrieveDocuments(store, req)
    assert.equal(
      docs.map((d) => [d.sourceName, d.chunks.length, d.truncated]),
      [
        ['a.md', 4, false],
        ['b.md', 2, false],
      ],
    )
    assert.equal(contents(docs[0]!.chunks), contents(A))
    const budget = await retrieveDocuments(store, { ...req, topK: 1 }, 10)
    assert.equal(
      budget.map((d) => [d.sourceName, contents(d.chunks), d.truncated]),
      [['a.md', [A[0]!.content], true]],
    )

    const passages = await retrieveNeighbors(store, { ...req, topK: 3, embedding: vec(0, 0.5, 1) }, 1)
    // Hits: b0 (0.89), a3 (0.45), a2 (0.32). b0 brings b1; a2 and a3 share one passage with a1.
    assert.equal(
      passages.map((p) => contents(p.chunks)),
      [
        [B[0]!.content, B[1]!.content],
        [A[1]!.content, A[2]!.content, A[3]!.content],
      ],
    )
    assert.equal(
      passages.map((p) => p.hits.length),
      [1, 2],
    )
    const all = passages.flatMap((p) => p.chunks.map((c) => c.id))
    assert.is(new Set(all).size, all.length, 'no chunk twice')
    assert.ok(passages[0]!.score >= passages[1]!.score)
  })

  test.run()
}

const fusion = suite('knowledge retrieval: reciprocal rank fusion')
const hit = (id: number, score = 0) => scoredChunk(id, score)
fusion('score = Σ weight / (k + rank), ranks from 1; ties by id', () => {
  const fused = fuse(
    [
      { hits: [hit(1), hit(2), hit(3)], weight: 1 },
      { hits: [hit(3), hit(4)], weight: 1 },
    ],
    60,
  )
  assert.equal(
    fused.map((h) => h.id),
    [3, 1, 2, 4],
  )
  assert.ok(Math.abs(fused[0]!.score - (1 / 63 + 1 / 61)) < 1e-12)
  assert.equal(
    fuse([
      { hits: [hit(1), hit(2)], weight: 0 },
      { hits: [hit(2), hit(1)], weight: 2 },
    ]).map((h) => h.id),
    [2, 1],
  )
})
fusion('score fusion: each leg min-max scaled over its own list, weighted, summed; a missing leg adds 0', () => {
  const scored = (id: number, score: number): ScoredChunk => ({ ...hit(id), score })
  // Lexical: 1 far ahead of 2 and 3; vector: 3 just ahead of 1. RRF would put 3 and 1 level-ish.
  const legs = [
    { hits: [scored(1, 9), scored(2, 2), scored(3, 1)], weight: 0.8 },
    { hits: [scored(3, 0.61), scored(1, 0.6), scored(4, 0.1)], weight: 0.2 },
  ]
  const fused = fuseScores(legs)
  assert.equal(
    fused.map((h) => h.id),
    [1, 3, 2, 4],
  )
  assert.ok(Math.abs(fused[0]!.score - (0.8 + 0.2 * (0.5 / 0.51))) < 1e-12)
  assert.is(fused[3]!.score, 0)
  // One hit, or equal scores: all scale to 1.
  assert.equal(
    fuseScores([
      { hits: [scored(5, 0.3)], weight: 1 },
      { hits: [], weight: 1 },
    ]).map((h) => [h.id, h.score]),
    [[5, 1]],
  )
})
fusion.run()

knowledgeContract('sqlite', 'sqlite-vec', [], async () => sqliteTestKnowledge())
knowledgeContract('postgres (exact arrays)', 'exact', ['postgres'], postgresTestKnowledge)
knowledgeContract('pglite + pgvector over the wire', 'pgvector', [], pgliteTestKnowledge)
