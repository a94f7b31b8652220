/**
 * Window vectors (`knowledge.vector_windows`), run against the three stores like the contract
 * suite: the vector leg scores a chunk by its best window, filters still apply inside it, chunks
 * without windows keep their chunk vector, and re-ingesting replaces windows atomically. Then
 * ingestion: which texts are embedded with windows on and off. Then an older SQLite file opens.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import * as sqliteVec from 'sqlite-vec'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  KnowledgeBase,
  DEFAULT_KNOWLEDGE_SETTINGS,
  type Embed,
} from '../../../../domains/query/knowledge/knowledge-base.js'
import type { CompiledFilter, FilterColumns } from '../../../../domains/query/knowledge/model.js'
import { search } from '../../../../domains/query/knowledge/retrieve.js'
import { openSqliteKnowledge } from '../../../../domains/query/knowledge/sqlite-knowledge.js'
import { openSqliteFile } from '../../../../kernel/services/stores/sqlite-file.js'
import type { EmbeddedChunk, KnowledgeStore } from '../../../../domains/query/knowledge/store.js'
import { vectorWindows } from '../../../../domains/query/knowledge/windows.js'
import {
  pgliteTestKnowledge,
  postgresTestKnowledge,
  sqliteTestKnowledge,
  type TestKnowledge,
} from '../../../support/knowledge-stores.js'
import { suiteNeeding } from '../../../support/needs-server.js'
import type { Server } from '../../../support/services.js'

const P = 'project-w'
const vec = (...v: number[]) => new Float32Array(v)
const chunk = (
  index: number,
  content: string,
  embedding: Float32Array,
  windows?: Float32Array[],
  over: Partial<EmbeddedChunk> = {},
): EmbeddedChunk => ({
  index,
  content,
  embedding,
  headingPath: [],
  tokens: content.split(' ').length,
  ...(windows ? { windows } : {}),
  ...over,
})
const contents = (hits: readonly { content: string }[]) => hits.map((h) => h.content)
const filter =
  (sql: (c: FilterColumns, p: string) => string, ...params: unknown[]): CompiledFilter =>
  (c, n) => ({ sql: sql(c, c.dialect === 'sqlite' ? '?' : `$${n}`), params })
const notB = filter((c, p) => `${c.sourceName} != ${p}`, 'b.md')
const likeA = filter((c, p) => `${c.sourceName} LIKE ${p}`, 'a%')
const page1 = filter((c, p) => `${c.pageNumber} = ${p}`, 1)
const taggedRed = (c: FilterColumns, n: number) =>
  c.dialect === 'sqlite'
    ? { sql: `EXISTS (SELECT 1 FROM json_each(${c.tags}) WHERE value = ?)`, params: ['red'] }
    : { sql: `${c.tags} @> $${n}::jsonb`, params: ['["red"]'] }

const Q = vec(0, 0, 1)
// Chunk vectors all point away from Q; only windows say where Q's passage is.
const A = [
  chunk(0, 'alpha overview of the gateway', vec(1, 0, 0.1), [vec(1, 0, 0), vec(0.1, 0, 1)], { pageNumber: 1 }), // second window ≈ Q
  chunk(1, 'alpha details of the queue', vec(0.7, 0.7, 0.3), [vec(1, 1, 0), vec(0, 1, 0.2)], { pageNumber: 1 }), // chunk vector nearer Q than a0's
  chunk(2, 'alpha closing words', vec(0, 1, 0), [vec(0, 1, 0)], { pageNumber: 2 }),
]
// b.md's window is Q exactly: the best match of all, unless a filter excludes it.
const B = [chunk(0, 'beta gateway secret', vec(1, 0, 0), [vec(1, 0, 0), vec(0, 0, 1)], { pageNumber: 1 })]

function windowsContract(
  label: string,
  needs: readonly Server[],
  open: () => Promise<TestKnowledge | undefined>,
): void {
  const test = suiteNeeding(needs, `knowledge store windows: ${label}`)
  let opened: TestKnowledge | undefined
  test.before(async () => {
    opened = await open()
    assert.ok(opened, `the ${label} store opened`)
    await opened.store.createCollection(P, 'w', { dimension: 3 })
    await opened.store.upsertDocument(P, 'w', { sourceName: 'a.md', tags: ['red'] }, A)
    await opened.store.upsertDocument(P, 'w', { sourceName: 'b.md', tags: ['blue'] }, B)
  })
  test.after(async () => {
    await opened?.store.close()
    await opened?.cleanup()
  })
  const it = (name: string, fn: (store: KnowledgeStore) => Promise<void>) => test(name, () => fn(opened!.store))

  it('a chunk whose best window matches ranks first, scored by that window', async (store) => {
    const hits = await store.vector(P, 'w', Q, 3)
    assert.equal(contents(hits), ['beta gateway secret', 'alpha overview of the gateway', 'alpha details of the queue'])
    assert.ok(Math.abs(hits[0]!.score - 1) < 1e-3, `score ${hits[0]!.score}`)
    const expected = 1 / Math.sqrt(1.01) // cos(a0's second window, Q)
    assert.ok(Math.abs(hits[1]!.score - expected) < 1e-3, `score ${hits[1]!.score}`)
    assert.is(new Set(hits.map((h) => h.id)).size, 3, 'one hit per chunk, however many of its windows match')
  })

  it('the filter applies inside the windowed vector leg: a filtered-out chunk never comes back through either leg', async (store) => {
    for (const f of [notB, likeA, taggedRed]) {
      const v = await store.vector(P, 'w', Q, 3, f)
      assert.equal(contents(v), ['alpha overview of the gateway', 'alpha details of the queue', 'alpha closing words'])
      const hybrid = await search(store, {
        project: P,
        collection: 'w',
        topK: 5,
        query: 'beta gateway secret',
        embedding: Q,
        filter: f,
      })
      assert.not.ok(
        hybrid.some((h) => h.sourceName === 'b.md'),
        contents(hybrid).join(' | '),
      )
    }
    // A chunk-level condition: page 1 keeps b0 and a0, a1; page 2 only a2.
    assert.equal(contents(await store.vector(P, 'w', Q, 5, page1)), [
      'beta gateway secret',
      'alpha overview of the gateway',
      'alpha details of the queue',
    ])
    assert.equal(
      contents(
        await store.vector(
          P,
          'w',
          Q,
          5,
          filter((c, p) => `${c.pageNumber} = ${p}`, 2),
        ),
      ),
      ['alpha closing words'],
    )
  })

  it('windows off: chunks without windows rank by their chunk vectors, as before; mixed with windowed ones by score', async (store) => {
    await store.createCollection(P, 'plain', { dimension: 3 })
    await store.upsertDocument(
      P,
      'plain',
      { sourceName: 'a.md' },
      A.map((c) => chunk(c.index, c.content, c.embedding)),
    )
    // Without windows a1's chunk vector is the nearest to Q, then a0's.
    assert.equal(contents(await store.vector(P, 'plain', Q, 2)), [
      'alpha details of the queue',
      'alpha overview of the gateway',
    ])
    // A windowed document joins: its window (Q itself) outranks; the windowless chunks keep their chunk scores.
    await store.upsertDocument(P, 'plain', { sourceName: 'b.md' }, B)
    const mixed = await store.vector(P, 'plain', Q, 3)
    assert.equal(contents(mixed), [
      'beta gateway secret',
      'alpha details of the queue',
      'alpha overview of the gateway',
    ])
    const cosA1 = 0.3 / Math.sqrt(0.49 + 0.49 + 0.09)
    assert.ok(Math.abs(mixed[1]!.score - cosA1) < 1e-3, `score ${mixed[1]!.score}`)
    assert.equal(contents(await store.vector(P, 'plain', Q, 3, notB)), [
      'alpha details of the queue',
      'alpha overview of the gateway',
      'alpha closing words',
    ])
    await store.deleteCollection(P, 'plain')
  })

  it('re-ingesting a document replaces its windows (idempotent per source_name, atomic)', async (store) => {
    await store.createCollection(P, 'again', { dimension: 3 })
    const doc = { sourceName: 'x.md' }
    await store.upsertDocument(P, 'again', doc, [
      chunk(0, 'first text', vec(1, 0, 0), [vec(0, 0, 1)]),
      chunk(1, 'other text', vec(0, 1, 0), [vec(0, 1, 0)]),
    ])
    await store.upsertDocument(P, 'again', doc, [
      chunk(0, 'first text', vec(1, 0, 0), [vec(0, 0, 1)]),
      chunk(1, 'other text', vec(0, 1, 0), [vec(0, 1, 0)]),
    ])
    const twice = await store.vector(P, 'again', Q, 5)
    assert.equal(
      contents(twice),
      ['first text', 'other text'],
      'the same document twice leaves one copy of its windows',
    )
    // A write that fails mid-document leaves the old chunks with their windows.
    await store
      .upsertDocument(P, 'again', doc, [
        chunk(0, 'new text', vec(0, 0, 1), [vec(0, 0, 1)]),
        chunk(1, 'bad', vec(0, 1, 0), [vec(0, 1, 0)], { tokens: -1 }),
      ])
      .then(
        () => assert.unreachable('a negative token count must fail the write'),
        () => undefined,
      )
    assert.equal(contents(await store.vector(P, 'again', Q, 5)), ['first text', 'other text'])
    // The replacement's windows point elsewhere: the old window that matched Q is gone.
    await store.upsertDocument(P, 'again', doc, [chunk(0, 'replaced text', vec(1, 0, 0), [vec(1, 0, 0)])])
    const hits = await store.vector(P, 'again', Q, 5)
    assert.equal(contents(hits), ['replaced text'])
    assert.ok(Math.abs(hits[0]!.score) < 1e-3, `the old window no longer scores: ${hits[0]!.score}`)
    await store.deleteDocument(P, 'again', 'x.md')
    assert.equal(await store.vector(P, 'again', Q, 5), [])
    await store.deleteCollection(P, 'again')
  })

  it('a window of the wrong size is a 400 before anything is written', async (store) => {
    const err = await store
      .upsertDocument(P, 'w', { sourceName: 'c.md' }, [chunk(0, 'x', vec(1, 0, 0), [vec(1, 0)])])
      .then(
        () => undefined,
        (e: Error) => e,
      )
    assert.match(String(err?.message), /window 0 of chunk 0 has 2 dimensions/)
    assert.is((await store.listDocuments(P, 'w')).length, 2)
  })

  test.run()
}

windowsContract('sqlite', [], async () => sqliteTestKnowledge())
windowsContract('postgres (exact arrays)', ['postgres'], postgresTestKnowledge)
windowsContract('pglite + pgvector over the wire', [], pgliteTestKnowledge)

const ingestion = suite('knowledge ingestion: window vectors')
/** A fake embedding route recording what it was asked to embed. */
function recorder(): { embed: Embed; texts: string[] } {
  const texts: string[] = []
  return {
    texts,
    embed: async (_model, input) => {
      texts.push(...input)
      return input.map((t) => vec(t.length, 1, 0))
    },
  }
}
const LONG = Array.from(
  { length: 12 },
  (_, i) => `Sentence number ${i} says something about the gateway and its queues.`,
).join(' ')

ingestion(
  'windows on: a chunk embedded as its windows of whole sentences only (not also whole); a one-window chunk once',
  async () => {
    const opened = sqliteTestKnowledge()
    try {
      const kb = new KnowledgeBase(opened.store, { ...DEFAULT_KNOWLEDGE_SETTINGS, vectorWindows: { maxTokens: 32 } })
      const { embed, texts } = recorder()
      await kb.createCollection(P, 'ing', undefined, embed)
      texts.length = 0
      await kb.ingest(
        P,
        'ing',
        { sourceName: 'long.txt' },
        { bytes: new TextEncoder().encode(LONG), fileName: 'long.txt' },
        embed,
      )
      // One chunk (512 tokens hold it): the model reads its windows, whole sentences in order, and not the chunk.
      assert.equal(texts, vectorWindows(LONG, 32))
      assert.ok(texts.length > 1 && texts.every((w) => w.endsWith('.')), texts.join(' | '))
      texts.length = 0
      await kb.ingest(
        P,
        'ing',
        { sourceName: 'short.txt' },
        { bytes: new TextEncoder().encode('Short one.'), fileName: 'short.txt' },
        embed,
      )
      assert.equal(texts, ['Short one.'], 'no second call for a chunk that is one window')
      assert.equal(contents(await opened.store.vector(P, 'ing', vec(10, 1, 0), 1)), ['Short one.'])
    } finally {
      await opened.store.close()
      await opened.cleanup()
    }
  },
)

ingestion('windows off (max_tokens 0): only the chunks are embedded, as before', async () => {
  const opened = sqliteTestKnowledge()
  try {
    const kb = new KnowledgeBase(opened.store, { ...DEFAULT_KNOWLEDGE_SETTINGS, vectorWindows: { maxTokens: 0 } })
    const { embed, texts } = recorder()
    await kb.createCollection(P, 'off', undefined, embed)
    texts.length = 0
    const doc = await kb.ingest(
      P,
      'off',
      { sourceName: 'long.txt' },
      { bytes: new TextEncoder().encode(LONG), fileName: 'long.txt' },
      embed,
    )
    assert.is(texts.length, doc.chunks)
  } finally {
    await opened.store.close()
    await opened.cleanup()
  }
})

ingestion('an SQLite file made before windows existed opens, and its chunks keep their chunk vectors', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-kb-old-'))
  try {
    let store = openSqliteKnowledge(openSqliteFile(dir, 'knowledge.db'))
    await store.createCollection(P, 'old', { dimension: 3 })
    await store.upsertDocument(
      P,
      'old',
      { sourceName: 'a.md' },
      A.map((c) => chunk(c.index, c.content, c.embedding)),
    )
    await store.close()
    // Back to the older layout: no windows column, no window tables.
    const db = new Database(path.join(dir, 'knowledge.db'))
    sqliteVec.load(db) // the file's vec0 tables must parse while the schema is altered
    db.exec('DROP INDEX kb_chunks_windowless; ALTER TABLE kb_chunks DROP COLUMN windows; DROP TABLE kb_windows')
    db.close()
    store = openSqliteKnowledge(openSqliteFile(dir, 'knowledge.db'))
    assert.equal(contents(await store.vector(P, 'old', Q, 2)), [
      'alpha details of the queue',
      'alpha overview of the gateway',
    ])
    await store.upsertDocument(P, 'old', { sourceName: 'b.md' }, B)
    assert.equal(contents(await store.vector(P, 'old', Q, 2)), ['beta gateway secret', 'alpha details of the queue'])
    await store.close()
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
ingestion.run()
