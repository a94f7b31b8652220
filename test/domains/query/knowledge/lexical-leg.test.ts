/**
 * The lexical leg on every store: stemming that agrees (a query's "indexes" finds a chunk's
 * "indexing" and "indexed" on SQLite, PostgreSQL and PGlite alike), heading paths indexed, BM25
 * ranking (rarity, length, headings) on every store, and the text index and statistics of an
 * older file or table rebuilt at open. The real PostgreSQL suites are skipped outside CI when
 * the server is not there, and fail under CI.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import * as assert from 'uvu/assert'
import { openSqliteKnowledge } from '../../../../domains/query/knowledge/sqlite-knowledge.js'
import { openSqliteFile } from '../../../../kernel/services/stores/sqlite-file.js'
import { openPostgresKnowledge } from '../../../../domains/query/knowledge/postgres-knowledge.js'
import type { EmbeddedChunk } from '../../../../domains/query/knowledge/store.js'
import {
  pgliteTestKnowledge,
  postgresTestKnowledge,
  sqliteTestKnowledge,
  type TestKnowledge,
} from '../../../support/knowledge-stores.js'
import { suiteNeeding } from '../../../support/needs-server.js'
import { POSTGRES_URL, uniqueName, type Server } from '../../../support/services.js'
import { dropSchema } from '../../../support/test-stores.js'

const P = 'p'
const C = 'docs'
const chunk = (index: number, content: string, headingPath: string[] = ['Notes']): EmbeddedChunk => ({
  index,
  content,
  headingPath,
  tokens: content.split(' ').length,
  embedding: new Float32Array([1, index, 0]),
})
const DOCS: [string, EmbeddedChunk[]][] = [
  ['grow.md', [chunk(0, 'Indexing a column speeds up lookups by that column.')]],
  ['made.md', [chunk(0, 'The table was indexed last night by the nightly job.')]],
  ['other.md', [chunk(0, 'Triggers run a statement after each row changes.')]],
  [
    'vacuum.md',
    [
      chunk(0, 'This command rebuilds the database file, repacking it into a minimal amount of disk space.', [
        'Vacuum',
      ]),
    ],
  ],
  ['mention.md', [chunk(0, 'Notes on the file format, and one on vacuum among many other words here.')]],
]

async function load(kb: TestKnowledge): Promise<void> {
  await kb.store.createCollection(P, C, { dimension: 3 })
  for (const [sourceName, chunks] of DOCS) await kb.store.upsertDocument(P, C, { sourceName }, chunks)
}
const names = async (kb: TestKnowledge, q: string) => (await kb.store.lexical(P, C, q, 10)).map((h) => h.sourceName)

function lexicalSuite(label: string, needs: readonly Server[], open: () => Promise<TestKnowledge | undefined>): void {
  const test = suiteNeeding(needs, `lexical leg: ${label}`)
  let kb: TestKnowledge
  test.before(async () => {
    kb = (await open())!
    await load(kb)
  })
  test.after(async () => {
    await kb.store.close()
    await kb.cleanup()
  })
  test('stemming: "indexes" finds "indexing" and "indexed"; the query is stemmed as the text is', async () => {
    assert.equal((await names(kb, 'indexes')).sort(), ['grow.md', 'made.md'])
    assert.equal((await names(kb, 'INDEX')).sort(), ['grow.md', 'made.md'])
    assert.equal(await names(kb, 'trigger running'), ['other.md'])
  })
  test('heading path: a chunk is found by a word only its heading holds', async () => {
    assert.equal((await names(kb, 'vacuum')).sort(), ['mention.md', 'vacuum.md'])
    assert.equal(await names(kb, 'vacuums'), await names(kb, 'vacuum'))
  })
  test.run()
}

lexicalSuite('sqlite (FTS5 porter)', [], async () => sqliteTestKnowledge())
lexicalSuite('postgres (english)', ['postgres'], postgresTestKnowledge)
lexicalSuite('pglite (english)', [], pgliteTestKnowledge)

/**
 * BM25 on every store (FTS5's bm25 in SQLite, postgres-lexical.ts in PostgreSQL and PGlite).
 * Filler chunks keep every tested word in fewer than half the chunks, where BM25's IDF is
 * positive (FTS5 floors it at 1e-6 past half). The chunk that should lose is always written
 * first: a ranking without IDF or length normalisation ties them and breaks the tie by id.
 */
const FILLER = Array.from({ length: 12 }, (_, i) => chunk(0, `Filler page ${i} on triggers, rows and statements.`))
const BM25_DOCS: [string, EmbeddedChunk[]][] = [
  // Rarity: "database" in four chunks, "pragma" in one; each holds one of them once.
  ['common.md', [chunk(0, 'Every database keeps pages.')]],
  ['rare.md', [chunk(0, 'Every pragma keeps pages.')]],
  ['db2.md', [chunk(0, 'A database file.')]],
  ['db3.md', [chunk(0, 'The database opens.')]],
  // Length: "journal" once in each, one chunk much longer.
  [
    'long.md',
    [
      chunk(
        0,
        'The journal is written first, then many other unrelated words follow: locking, caching, paging, sorting, hashing, merging, splitting, joining, grouping, ordering.',
      ),
    ],
  ],
  ['short.md', [chunk(0, 'The journal is written first.')]],
  // Headings: "checkpoint" in a heading only, in the content only, and in both.
  ['heading.md', [chunk(0, 'Writes wait here until later.', ['Checkpoint'])]],
  ['content.md', [chunk(0, 'Checkpoint writes wait until later.')]],
  ['both.md', [chunk(0, 'Checkpoint writes wait until later.', ['Checkpoint'])]],
  ...FILLER.map((c, i): [string, EmbeddedChunk[]] => [`filler${i}.md`, [c]]),
]

function bm25Suite(label: string, needs: readonly Server[], open: () => Promise<TestKnowledge | undefined>): void {
  const test = suiteNeeding(needs, `lexical leg, BM25: ${label}`)
  let kb: TestKnowledge
  test.before(async () => {
    kb = (await open())!
    await kb.store.createCollection(P, C, { dimension: 3 })
    for (const [sourceName, chunks] of BM25_DOCS) await kb.store.upsertDocument(P, C, { sourceName }, chunks)
  })
  test.after(async () => {
    await kb.store.close()
    await kb.cleanup()
  })
  test('a rare word outranks a common one', async () => {
    const found = await names(kb, 'pragma database')
    assert.is(found[0], 'rare.md')
    assert.ok(found.includes('common.md'), found.join())
  })
  test('a shorter chunk with the same matches outranks a longer one', async () => {
    assert.equal(await names(kb, 'journal'), ['short.md', 'long.md'])
  })
  test('headings count: less than the text, and on top of it', async () => {
    assert.equal(await names(kb, 'checkpoint'), ['both.md', 'content.md', 'heading.md'])
  })
  test('the collection statistics follow writes: a document written again or removed and restored ranks the same', async () => {
    const scores = async () => (await kb.store.lexical(P, C, 'pragma journal checkpoint', 10)).map((h) => h.score)
    const before = await scores()
    for (const [sourceName, chunks] of BM25_DOCS.slice(0, 3))
      await kb.store.upsertDocument(P, C, { sourceName }, chunks)
    await kb.store.deleteDocument(P, C, 'long.md')
    await kb.store.upsertDocument(P, C, { sourceName: 'long.md' }, BM25_DOCS[4]![1])
    const after = await scores()
    assert.is(after.length, before.length)
    after.forEach((s, i) => assert.ok(Math.abs(s - before[i]!) < 1e-9, `${s} vs ${before[i]}`))
    // And they move when the collection does: another chunk holding "pragma" lowers its IDF.
    const rare = async () => (await kb.store.lexical(P, C, 'pragma', 10)).find((h) => h.sourceName === 'rare.md')!.score
    const alone = await rare()
    await kb.store.upsertDocument(P, C, { sourceName: 'pragma2.md' }, [chunk(0, 'Another pragma here.')])
    assert.ok((await rare()) < alone)
    await kb.store.deleteDocument(P, C, 'pragma2.md')
    assert.ok(Math.abs((await rare()) - alone) < 1e-9)
  })
  test('statistics behind the table (written by an older version) still find, and never fail', async () => {
    if (!kb.sql) return // the real PostgreSQL only: the others have no side door to the table
    await kb.sql('UPDATE kb_collections SET lexical_chunks = 1, lexical_length = 1')
    // Every word then looks common (IDF floored, as FTS5 floors it): found, ranked by length and count.
    const found = await names(kb, 'pragma database')
    assert.ok(found.includes('rare.md') && found.includes('common.md'), found.join())
  })
  test.run()
}

bm25Suite('sqlite (FTS5 bm25)', [], async () => sqliteTestKnowledge())
bm25Suite('postgres', ['postgres'], postgresTestKnowledge)
bm25Suite('pglite', [], pgliteTestKnowledge)

const migration = suiteNeeding([], 'lexical leg: older files')
migration('sqlite: a text index of content alone is rebuilt with the heading paths at open', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-kb-'))
  try {
    let store = openSqliteKnowledge(openSqliteFile(dir, 'knowledge.db'))
    await store.createCollection(P, C, { dimension: 3 })
    await store.upsertDocument(P, C, { sourceName: 'vacuum.md' }, DOCS[3]![1])
    await store.close()
    // The index as files made before heading paths had it.
    const db = new Database(path.join(dir, 'knowledge.db'))
    db.exec(`DROP TRIGGER kb_chunks_ai; DROP TRIGGER kb_chunks_ad; DROP TRIGGER kb_chunks_au; DROP TABLE kb_chunks_fts;
      CREATE VIRTUAL TABLE kb_chunks_fts USING fts5(content, content='kb_chunks', content_rowid='id', tokenize='porter unicode61');
      CREATE TRIGGER kb_chunks_ai AFTER INSERT ON kb_chunks BEGIN INSERT INTO kb_chunks_fts (rowid, content) VALUES (new.id, new.content); END;
      INSERT INTO kb_chunks_fts (kb_chunks_fts) VALUES ('rebuild');`)
    db.close()
    const log: string[] = []
    store = openSqliteKnowledge(openSqliteFile(dir, 'knowledge.db'), (l) => log.push(l))
    try {
      assert.ok(
        log.some((l) => l.includes('text index rebuilt')),
        log.join('\n'),
      )
      assert.equal(
        (await store.lexical(P, C, 'vacuum', 5)).map((h) => h.sourceName),
        ['vacuum.md'],
      )
      assert.equal(
        (await store.lexical(P, C, 'rebuilding', 5)).map((h) => h.sourceName),
        ['vacuum.md'],
      )
      // The triggers are the new ones: a new chunk is found by its heading.
      await store.upsertDocument(P, C, { sourceName: 'b.md' }, [chunk(0, 'nothing here', ['Pragmas'])])
      assert.equal(
        (await store.lexical(P, C, 'pragma', 5)).map((h) => h.sourceName),
        ['b.md'],
      )
    } finally {
      await store.close()
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
migration.run()

const pgMigration = suiteNeeding(['postgres'], 'lexical leg: older PostgreSQL tables')
pgMigration('postgres: a tsv of content alone is recomputed with the heading paths at open', async () => {
  const schema = uniqueName('sluice_kb')
  try {
    let store = await openPostgresKnowledge({ url: POSTGRES_URL, schema })
    await store.createCollection(P, C, { dimension: 3 })
    await store.upsertDocument(P, C, { sourceName: 'vacuum.md' }, DOCS[3]![1])
    await store.close()
    const pg = await import('pg')
    const client = new pg.default.Client({ connectionString: POSTGRES_URL, options: `-c search_path=${schema}` })
    await client.connect()
    // And before the BM25 statistics existed.
    await client.query(`ALTER TABLE kb_chunks DROP COLUMN tsv;
      ALTER TABLE kb_chunks ADD COLUMN tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED;
      CREATE INDEX kb_chunks_tsv ON kb_chunks USING GIN (tsv);
      ALTER TABLE kb_collections DROP COLUMN lexical_chunks, DROP COLUMN lexical_length;`)
    await client.end()
    const log: string[] = []
    store = await openPostgresKnowledge({ url: POSTGRES_URL, schema, log: (l) => log.push(l) })
    try {
      assert.ok(
        log.some((l) => l.includes('text index rebuilt')) && log.some((l) => l.includes('BM25 statistics counted')),
        log.join('\n'),
      )
      assert.equal(
        (await store.lexical(P, C, 'vacuum', 5)).map((h) => h.sourceName),
        ['vacuum.md'],
      )
    } finally {
      await store.close()
    }
  } finally {
    await dropSchema(schema)
  }
})
pgMigration.run()
