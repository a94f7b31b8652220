/**
 * The embedded knowledge store: one SQLite file in the data folder (better-sqlite3, WAL), with
 * FTS5 for the lexical leg and sqlite-vec for the vector leg.
 *
 * - Text: `kb_chunks` holds the chunks; `kb_chunks_fts` is an FTS5 index over their content
 *   (external content, `porter unicode61`), kept in step by triggers; ranked by bm25. A query's
 *   words, stop words out (search-terms.ts), are each double-quoted and joined with OR, so no
 *   FTS5 operator from user text runs; FTS5 sorts its matches by rank and the rows are read in
 *   that order until k pass the collection and the filter.
 * - Vectors: one vec0 table per dimension (`kb_vec_<d>`, the number checked, never user text),
 *   cosine distance, the collection's row id as partition key (it names project and collection
 *   at once), and `source_name` as a metadata column so that conditions on it run inside the KNN.
 * - Filters (the compiled SQL): tried first inside the KNN query with `source_name` pointing at
 *   the vec0 metadata column, over-fetching k×4; vec0 evaluates what it can (=, !=, <, >, IN on
 *   source_name) during the search and SQLite applies the rest to the over-fetched rows. When
 *   vec0 refuses a constraint (LIKE, IS NULL on its column) the same is tried with the
 *   document's column. When fewer than k rows survive, an exact scan over every chunk that
 *   passes the filter (vec_distance_cosine) gives the right answer: a selective filter makes
 *   that scan small, a broad one rarely needs it. Its limit: a filter that is broad yet passes
 *   few of the nearest chunks scans the whole collection (brute force, as vec0 itself is).
 * - Windows (`knowledge.vector_windows`): a second vec0 table per dimension (`kb_win_<d>`) with
 *   the same partition key and `source_name` metadata column, plus `chunk_id` as metadata, so
 *   the same KNN statement and the same filter paths serve it; `kb_windows` maps window ids to
 *   chunks for point deletes. The window KNN over-fetches k × WINDOW_OVERFETCH windows, keeps
 *   each chunk's best, and falls back to the exact max over every window of the chunks the
 *   filter passes when fewer than k chunks come out. `kb_chunks.windows` counts a chunk's
 *   windows: chunks with none (windows off, or stored before windows existed; the column is
 *   added with 0 when an older file opens) are searched by their chunk vector, restricted to
 *   `windows = 0`, and merged by score. A collection without windows takes the old path only.
 */
import type Database from 'better-sqlite3'
import * as sqliteVec from 'sqlite-vec'
import type { CompiledFilter, DocumentInput, FilterColumns } from './model.js'
import {
  bestPerChunk,
  boundK,
  checkChunkEmbeddings,
  checkDimension,
  checkEmbedding,
  collectionExists,
  missingCollection,
  missingDocument,
  WINDOW_OVERFETCH,
  type CollectionInfo,
  type EmbeddedChunk,
  type KnowledgeStore,
  type ScoredChunk,
  type StoredChunk,
  type StoredDocument,
} from './store.js'
import { HEADING_WEIGHT, searchTerms } from './search-terms.js'

const schema = `
CREATE TABLE IF NOT EXISTS kb_collections (
  id INTEGER PRIMARY KEY, project TEXT NOT NULL, name TEXT NOT NULL, dimension INTEGER NOT NULL, embedding_model TEXT, created_at INTEGER NOT NULL,
  UNIQUE (project, name)
);
CREATE TABLE IF NOT EXISTS kb_documents (
  id INTEGER PRIMARY KEY, collection INTEGER NOT NULL, source_name TEXT NOT NULL, url TEXT,
  tags TEXT NOT NULL, metadata TEXT NOT NULL, updated_at INTEGER NOT NULL, UNIQUE (collection, source_name)
);
CREATE TABLE IF NOT EXISTS kb_chunks (
  id INTEGER PRIMARY KEY, collection INTEGER NOT NULL, document INTEGER NOT NULL,
  idx INTEGER NOT NULL CHECK (idx >= 0), content TEXT NOT NULL, heading_path TEXT NOT NULL,
  page_number INTEGER, tokens INTEGER NOT NULL CHECK (tokens >= 0), windows INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS kb_windows (id INTEGER PRIMARY KEY, collection INTEGER NOT NULL, chunk INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS kb_windows_chunk ON kb_windows (chunk);
CREATE INDEX IF NOT EXISTS kb_windows_collection ON kb_windows (collection);
CREATE INDEX IF NOT EXISTS kb_chunks_document ON kb_chunks (document, idx);
CREATE INDEX IF NOT EXISTS kb_chunks_collection ON kb_chunks (collection);
`

/**
 * The text index: the chunk's content and its heading path (the JSON array of its headings,
 * page title first; unicode61 drops the brackets and quotes), both read from kb_chunks
 * (external content) and stemmed by Porter. bm25 weighs a heading word HEADING_WEIGHT times a
 * content word (the `rank` setting, set at every open).
 */
const ftsSchema = `
CREATE VIRTUAL TABLE IF NOT EXISTS kb_chunks_fts USING fts5(content, heading_path, content='kb_chunks', content_rowid='id', tokenize='porter unicode61');
CREATE TRIGGER IF NOT EXISTS kb_chunks_ai AFTER INSERT ON kb_chunks BEGIN
  INSERT INTO kb_chunks_fts (rowid, content, heading_path) VALUES (new.id, new.content, new.heading_path);
END;
CREATE TRIGGER IF NOT EXISTS kb_chunks_ad AFTER DELETE ON kb_chunks BEGIN
  INSERT INTO kb_chunks_fts (kb_chunks_fts, rowid, content, heading_path) VALUES ('delete', old.id, old.content, old.heading_path);
END;
CREATE TRIGGER IF NOT EXISTS kb_chunks_au AFTER UPDATE ON kb_chunks BEGIN
  INSERT INTO kb_chunks_fts (kb_chunks_fts, rowid, content, heading_path) VALUES ('delete', old.id, old.content, old.heading_path);
  INSERT INTO kb_chunks_fts (rowid, content, heading_path) VALUES (new.id, new.content, new.heading_path);
END;
`

const CHUNK_COLUMNS =
  'c.id, c.document, d.source_name, d.url, d.tags, d.metadata, c.idx, c.content, c.heading_path, c.page_number, c.tokens'
const JOIN_DOCUMENT = 'JOIN kb_documents d ON d.id = c.document'

const columns: FilterColumns = {
  dialect: 'sqlite',
  sourceName: 'd.source_name',
  url: 'd.url',
  pageNumber: 'c.page_number',
  tags: 'd.tags',
  metadata: 'd.metadata',
}
/** The same, with `source_name` read from the vec0 metadata column so vec0 can apply it during the KNN. */
const knnColumns: FilterColumns = { ...columns, sourceName: 'v.source_name' }

interface ChunkRow {
  id: number
  document: number
  source_name: string
  url: string | null
  tags: string
  metadata: string
  idx: number
  content: string
  heading_path: string
  page_number: number | null
  tokens: number
}
interface Collection {
  id: number
  name: string
  dimension: number
}

function chunkFromRow(r: ChunkRow): StoredChunk {
  return {
    id: r.id,
    documentId: r.document,
    sourceName: r.source_name,
    url: r.url,
    tags: JSON.parse(r.tags),
    metadata: JSON.parse(r.metadata),
    index: r.idx,
    content: r.content,
    headingPath: JSON.parse(r.heading_path),
    pageNumber: r.page_number,
    tokens: r.tokens,
  }
}

function where(filter: CompiledFilter | undefined, cols: FilterColumns): { sql: string; params: unknown[] } {
  if (!filter) return { sql: '', params: [] }
  const f = filter(cols, 1)
  return { sql: ` AND (${f.sql})`, params: [...f.params] }
}

/** FTS5 query text: every search term (stop words out) double-quoted (quotes inside doubled), joined with OR. */
export function ftsQuery(query: string): string {
  return searchTerms(query)
    .map((t) => `"${t.replace(/"/g, '""')}"`)
    .join(' OR ')
}

const vecTable = (dimension: number) => `kb_vec_${dimension}`
const winTable = (dimension: number) => `kb_win_${dimension}`

/**
 * Files made before headings were indexed: the text index had the content alone. Its triggers
 * and table are dropped and made again, and FTS5 rebuilds the index from kb_chunks (`rebuild`
 * reads every chunk once: seconds for 100k chunks, once). Nothing else in the file changes.
 */
function migrateFts(db: Database.Database, log: (line: string) => void): void {
  const sql = db.prepare(`SELECT sql FROM sqlite_master WHERE name = 'kb_chunks_fts'`).pluck().get() as
    | string
    | undefined
  const stale = sql !== undefined && !sql.includes('heading_path')
  if (stale)
    db.exec(`DROP TRIGGER IF EXISTS kb_chunks_ai; DROP TRIGGER IF EXISTS kb_chunks_ad; DROP TRIGGER IF EXISTS kb_chunks_au;
      DROP TABLE kb_chunks_fts;`)
  db.exec(ftsSchema)
  if (stale) {
    db.exec(`INSERT INTO kb_chunks_fts (kb_chunks_fts) VALUES ('rebuild')`)
    const n = db.prepare('SELECT count(*) FROM kb_chunks').pluck().get() as number
    log(`knowledge store: text index rebuilt with heading paths (${n} chunks)`)
  }
  db.prepare(`INSERT INTO kb_chunks_fts (kb_chunks_fts, rank) VALUES ('rank', ?)`).run(`bm25(1.0, ${HEADING_WEIGHT})`)
}

/** Files made before windows existed: the count column (0 = search by the chunk vector) and its index. */
function migrateWindows(db: Database.Database): void {
  const cols = db.prepare(`SELECT name FROM pragma_table_info('kb_chunks')`).pluck().all() as string[]
  if (!cols.includes('windows')) db.exec('ALTER TABLE kb_chunks ADD COLUMN windows INTEGER NOT NULL DEFAULT 0')
  db.exec('CREATE INDEX IF NOT EXISTS kb_chunks_windowless ON kb_chunks (collection) WHERE windows = 0')
}

/** `db`: knowledge.db of the data folder, opened through the stores seam (`stores.sqlite`). */
export function openSqliteKnowledge(
  db: Database.Database,
  log: (line: string) => void = () => undefined,
): KnowledgeStore {
  sqliteVec.load(db)
  db.exec(schema)
  db.transaction(() => migrateFts(db, log))()
  migrateWindows(db)
  log('knowledge store: sqlite, vectors by sqlite-vec (exact cosine, filters inside the KNN where vec0 can)')

  const ensureVecTable = (dimension: number) =>
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${vecTable(dimension)} USING vec0(chunk_id INTEGER PRIMARY KEY, embedding float[${dimension}] distance_metric=cosine, collection INTEGER PARTITION KEY, source_name TEXT);
      CREATE VIRTUAL TABLE IF NOT EXISTS ${winTable(dimension)} USING vec0(window_id INTEGER PRIMARY KEY, embedding float[${dimension}] distance_metric=cosine, collection INTEGER PARTITION KEY, source_name TEXT, chunk_id INTEGER)`)
  // Existing files: the window table of every dimension in use (dimensions are checked integers).
  for (const d of db.prepare('SELECT DISTINCT dimension FROM kb_collections').pluck().all() as number[])
    ensureVecTable(d)

  const findCollection = db.prepare('SELECT id, name, dimension FROM kb_collections WHERE project = ? AND name = ?')
  const resolve = (project: string, name: string): Collection => {
    const row = findCollection.get(project, name) as Collection | undefined
    if (!row) throw missingCollection(name)
    return row
  }
  const info = (project: string, name: string): CollectionInfo => {
    const row = db
      .prepare(`SELECT k.name, k.dimension, k.embedding_model AS embeddingModel, k.created_at AS createdAt,
        (SELECT count(*) FROM kb_documents WHERE collection = k.id) AS documents,
        (SELECT count(*) FROM kb_chunks WHERE collection = k.id) AS chunks
      FROM kb_collections k WHERE k.project = ? AND k.name = ?`)
      .get(project, name) as CollectionInfo | undefined
    if (!row) throw missingCollection(name)
    return row
  }
  const documentRows = (collection: number, sourceName?: string): StoredDocument[] =>
    (
      db
        .prepare(`SELECT d.id, d.source_name, d.url, d.tags, d.metadata, d.updated_at, (SELECT count(*) FROM kb_chunks WHERE document = d.id) AS chunks
       FROM kb_documents d WHERE d.collection = ?${sourceName === undefined ? '' : ' AND d.source_name = ?'} ORDER BY d.source_name`)
        .all(...(sourceName === undefined ? [collection] : [collection, sourceName])) as {
        id: number
        source_name: string
        url: string | null
        tags: string
        metadata: string
        updated_at: number
        chunks: number
      }[]
    ).map((r) => ({
      id: r.id,
      sourceName: r.source_name,
      url: r.url,
      tags: JSON.parse(r.tags),
      metadata: JSON.parse(r.metadata),
      chunks: r.chunks,
      updatedAt: r.updated_at,
    }))

  const removeDocument = (collection: Collection, documentId: number) => {
    db.prepare(
      `DELETE FROM ${winTable(collection.dimension)} WHERE window_id IN (SELECT x.id FROM kb_windows x JOIN kb_chunks c ON c.id = x.chunk WHERE c.document = ?)`,
    ).run(documentId)
    db.prepare('DELETE FROM kb_windows WHERE chunk IN (SELECT id FROM kb_chunks WHERE document = ?)').run(documentId)
    db.prepare(
      `DELETE FROM ${vecTable(collection.dimension)} WHERE chunk_id IN (SELECT id FROM kb_chunks WHERE document = ?)`,
    ).run(documentId)
    db.prepare('DELETE FROM kb_chunks WHERE document = ?').run(documentId)
    db.prepare('DELETE FROM kb_documents WHERE id = ?').run(documentId)
  }

  const upsert = db.transaction((collection: Collection, document: DocumentInput, chunks: readonly EmbeddedChunk[]) => {
    const old = db
      .prepare('SELECT id FROM kb_documents WHERE collection = ? AND source_name = ?')
      .pluck()
      .get(collection.id, document.sourceName) as number | undefined
    if (old !== undefined) removeDocument(collection, old)
    const documentId = Number(
      db
        .prepare(
          'INSERT INTO kb_documents (collection, source_name, url, tags, metadata, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
        )
        .run(
          collection.id,
          document.sourceName,
          document.url ?? null,
          JSON.stringify(document.tags ?? []),
          JSON.stringify(document.metadata ?? {}),
          Date.now(),
        ).lastInsertRowid,
    )
    const insertChunk = db.prepare(
      'INSERT INTO kb_chunks (collection, document, idx, content, heading_path, page_number, tokens, windows) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    )
    const insertVector = db.prepare(
      `INSERT INTO ${vecTable(collection.dimension)} (chunk_id, embedding, collection, source_name) VALUES (?, ?, ?, ?)`,
    )
    const insertWindowRow = db.prepare('INSERT INTO kb_windows (collection, chunk) VALUES (?, ?)')
    const insertWindow = db.prepare(
      `INSERT INTO ${winTable(collection.dimension)} (window_id, embedding, collection, source_name, chunk_id) VALUES (?, ?, ?, ?, ?)`,
    )
    for (const c of chunks) {
      const windows = c.windows ?? []
      const id = insertChunk.run(
        collection.id,
        documentId,
        c.index,
        c.content,
        JSON.stringify(c.headingPath),
        c.pageNumber ?? null,
        c.tokens,
        windows.length,
      ).lastInsertRowid
      // vec0 wants BigInt keys and integer columns (sqlite-vec issue #270).
      insertVector.run(BigInt(id), c.embedding, BigInt(collection.id), document.sourceName)
      for (const w of windows) {
        const windowId = insertWindowRow.run(collection.id, id).lastInsertRowid
        insertWindow.run(BigInt(windowId), w, BigInt(collection.id), document.sourceName, BigInt(id))
      }
    }
    return documentId
  })

  const dropCollection = db.transaction((collection: Collection) => {
    db.prepare(
      `DELETE FROM ${winTable(collection.dimension)} WHERE window_id IN (SELECT id FROM kb_windows WHERE collection = ?)`,
    ).run(collection.id)
    db.prepare('DELETE FROM kb_windows WHERE collection = ?').run(collection.id)
    db.prepare(
      `DELETE FROM ${vecTable(collection.dimension)} WHERE chunk_id IN (SELECT id FROM kb_chunks WHERE collection = ?)`,
    ).run(collection.id)
    db.prepare('DELETE FROM kb_chunks WHERE collection = ?').run(collection.id)
    db.prepare('DELETE FROM kb_documents WHERE collection = ?').run(collection.id)
    db.prepare('DELETE FROM kb_collections WHERE id = ?').run(collection.id)
  })

  const scored = (rows: (ChunkRow & { score: number })[]): ScoredChunk[] =>
    rows.map((r) => ({ ...chunkFromRow(r), score: r.score }))

  /**
   * The KNN query with the filter inside it; undefined when vec0 refuses one of its constraints.
   * `table` is the chunk vectors or the window vectors: both carry chunk_id, collection and source_name.
   */
  const knn = (
    table: string,
    collection: Collection,
    embedding: Float32Array,
    fetch: number,
    filter: CompiledFilter | undefined,
    cols: FilterColumns,
    extra = '',
  ) => {
    const w = where(filter, cols)
    // CROSS JOIN keeps vec0 as the outer loop, so its KNN runs first and the joins follow.
    const sql = `SELECT ${CHUNK_COLUMNS}, 1 - v.distance AS score FROM ${table} v
      CROSS JOIN kb_chunks c ON c.id = v.chunk_id CROSS JOIN kb_documents d ON d.id = c.document
      WHERE v.embedding MATCH ? AND v.k = ? AND v.collection = ?${extra}${w.sql} ORDER BY v.distance`
    try {
      return db.prepare(sql).all(embedding, BigInt(fetch), BigInt(collection.id), ...w.params) as (ChunkRow & {
        score: number
      })[]
    } catch (err) {
      if (err instanceof Error && /illegal WHERE constraint/i.test(err.message)) return undefined
      throw err
    }
  }

  /** Chunk vectors; `extra` (windowless chunks only) is applied after the KNN, like a filter. */
  const chunkVectors = (
    collection: Collection,
    embedding: Float32Array,
    limit: number,
    filter: CompiledFilter | undefined,
    extra = '',
  ): ScoredChunk[] => {
    const table = vecTable(collection.dimension)
    if (!filter && !extra) return scored(knn(table, collection, embedding, limit, undefined, columns) ?? [])
    const fetch = boundK(limit * 4)
    const rows =
      knn(table, collection, embedding, fetch, filter, knnColumns, extra) ??
      knn(table, collection, embedding, fetch, filter, columns, extra)
    if (rows && rows.length >= limit) return scored(rows.slice(0, limit))
    // Too few survived the over-fetch: exact cosine over every chunk the filter passes.
    const w = where(filter, columns)
    const exact = db
      .prepare(`SELECT ${CHUNK_COLUMNS}, 1 - vec_distance_cosine(v.embedding, ?) AS score FROM kb_chunks c ${JOIN_DOCUMENT}
        JOIN ${table} v ON v.chunk_id = c.id
        WHERE c.collection = ?${extra}${w.sql} ORDER BY score DESC LIMIT ?`)
      .all(embedding, collection.id, ...w.params, limit) as (ChunkRow & { score: number })[]
    return scored(exact)
  }

  /** Chunks by their best window: KNN over windows, over-fetched, max-pooled; exact when too few chunks come out. */
  const windowVectors = (
    collection: Collection,
    embedding: Float32Array,
    limit: number,
    filter: CompiledFilter | undefined,
  ): ScoredChunk[] => {
    const table = winTable(collection.dimension)
    const fetch = boundK(limit * WINDOW_OVERFETCH)
    const rows = filter
      ? (knn(table, collection, embedding, fetch, filter, knnColumns) ??
        knn(table, collection, embedding, fetch, filter, columns))
      : knn(table, collection, embedding, fetch, undefined, columns)
    const best = bestPerChunk(scored(rows ?? []), limit)
    if (best.length >= limit) return best
    const w = where(filter, columns)
    const exact = db
      .prepare(`SELECT ${CHUNK_COLUMNS}, max(1 - vec_distance_cosine(v.embedding, ?)) AS score FROM kb_chunks c ${JOIN_DOCUMENT}
        JOIN kb_windows x ON x.chunk = c.id JOIN ${table} v ON v.window_id = x.id
        WHERE c.collection = ?${w.sql} GROUP BY c.id ORDER BY score DESC, c.id LIMIT ?`)
      .all(embedding, collection.id, ...w.params, limit) as (ChunkRow & { score: number })[]
    return scored(exact)
  }
  const hasWindows = db.prepare('SELECT EXISTS (SELECT 1 FROM kb_windows WHERE collection = ?)').pluck()
  const hasWindowless = db
    .prepare('SELECT EXISTS (SELECT 1 FROM kb_chunks WHERE collection = ? AND windows = 0)')
    .pluck()

  return {
    kind: 'sqlite',
    vectors: 'sqlite-vec',

    async ping() {
      db.prepare('SELECT 1').get()
    },

    async createCollection(project, name, { dimension, embeddingModel }) {
      checkDimension(dimension)
      if (findCollection.get(project, name)) throw collectionExists(name)
      ensureVecTable(dimension)
      db.prepare(
        'INSERT INTO kb_collections (project, name, dimension, embedding_model, created_at) VALUES (?, ?, ?, ?, ?)',
      ).run(project, name, dimension, embeddingModel ?? null, Date.now())
      return info(project, name)
    },
    async listCollections(project) {
      const names = db
        .prepare('SELECT name FROM kb_collections WHERE project = ? ORDER BY name')
        .pluck()
        .all(project) as string[]
      return names.map((n) => info(project, n))
    },
    async getCollection(project, name) {
      return info(project, name)
    },
    async deleteCollection(project, name) {
      dropCollection(resolve(project, name))
    },

    async upsertDocument(project, name, document, chunks) {
      const collection = resolve(project, name)
      checkChunkEmbeddings(name, collection.dimension, chunks)
      upsert(collection, document, chunks)
      return documentRows(collection.id, document.sourceName)[0]!
    },
    async listDocuments(project, name) {
      return documentRows(resolve(project, name).id)
    },
    async deleteDocument(project, name, sourceName) {
      const collection = resolve(project, name)
      const id = db
        .prepare('SELECT id FROM kb_documents WHERE collection = ? AND source_name = ?')
        .pluck()
        .get(collection.id, sourceName) as number | undefined
      if (id === undefined) throw missingDocument(name, sourceName)
      db.transaction(() => removeDocument(collection, id))()
    },

    async lexical(project, name, query, k, filter) {
      const collection = resolve(project, name)
      const match = ftsQuery(query)
      if (!match) return []
      const w = where(filter, columns)
      // FTS5 is the outer loop (CROSS JOIN) and sorts its matches by `rank` (bm25) itself, keeping
      // only rowid and score; the chunk and document rows are then read in rank order and the
      // collection and filter tested until k pass, so LIMIT stops the scan instead of every match
      // being joined, filtered and sorted with its content. bm25 is negative, more negative
      // better: negated so that higher is better in every leg.
      const rows = db
        .prepare(`SELECT ${CHUNK_COLUMNS}, -f.rank AS score FROM kb_chunks_fts f
          CROSS JOIN kb_chunks c ON c.id = f.rowid CROSS JOIN kb_documents d ON d.id = c.document
          WHERE kb_chunks_fts MATCH ? AND c.collection = ?${w.sql} ORDER BY f.rank LIMIT ?`)
        .all(match, collection.id, ...w.params, boundK(k)) as (ChunkRow & { score: number })[]
      return scored(rows)
    },

    async vector(project, name, embedding, k, filter) {
      const collection = resolve(project, name)
      checkEmbedding(name, collection.dimension, embedding, 'query embedding')
      const limit = boundK(k)
      if (!hasWindows.get(collection.id)) return chunkVectors(collection, embedding, limit, filter)
      const windowed = windowVectors(collection, embedding, limit, filter)
      if (!hasWindowless.get(collection.id)) return windowed
      return bestPerChunk(
        [...windowed, ...chunkVectors(collection, embedding, limit, filter, ' AND c.windows = 0')],
        limit,
      )
    },

    async neighbors(project, name, chunkIds, window) {
      const collection = resolve(project, name)
      if (chunkIds.length === 0) return []
      const w = Math.max(0, Math.floor(window))
      const rows = db
        .prepare(`SELECT DISTINCT ${CHUNK_COLUMNS} FROM kb_chunks h JOIN kb_chunks c ON c.document = h.document AND c.idx BETWEEN h.idx - ? AND h.idx + ?
          ${JOIN_DOCUMENT} WHERE h.collection = ? AND h.id IN (SELECT value FROM json_each(?)) ORDER BY c.document, c.idx`)
        .all(w, w, collection.id, JSON.stringify(chunkIds)) as ChunkRow[]
      return rows.map(chunkFromRow)
    },
    async documentChunks(project, name, documentIds) {
      const collection = resolve(project, name)
      if (documentIds.length === 0) return []
      const rows = db
        .prepare(`SELECT ${CHUNK_COLUMNS} FROM kb_chunks c ${JOIN_DOCUMENT}
          WHERE c.collection = ? AND c.document IN (SELECT value FROM json_each(?)) ORDER BY c.document, c.idx`)
        .all(collection.id, JSON.stringify(documentIds)) as ChunkRow[]
      return rows.map(chunkFromRow)
    },

    async close() {
      db.close()
    },
  }
}
