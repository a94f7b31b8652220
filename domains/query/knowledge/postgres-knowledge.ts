/**
 * The scale-out knowledge store: PostgreSQL through a small pg pool.
 *
 * - Text: a generated `tsvector` column ('english') with a GIN index, ranked by BM25 computed in
 *   SQL (as FTS5's bm25) over all the query's words (stop words out), OR-ed as in the SQLite
 *   store; only chunks holding one of the query's rarer words are candidates; per collection
 *   `lexical_chunks` and `lexical_length` keep BM25's N and average length (postgres-lexical.ts
 *   says why and how). No text of the user reaches the tsquery parser: the lexemes are PostgreSQL's own.
 * - Vectors, decided at open (and said in a log line):
 *   - `pgvector` when `CREATE EXTENSION IF NOT EXISTS vector` succeeds: a `vector` column and one
 *     partial HNSW index (`vector_cosine_ops`) per dimension over `embedding::vector(d)`; every
 *     search sets `hnsw.iterative_scan = relaxed_order` for its transaction, because the
 *     collection (and any filter) is a condition the index scan would otherwise apply after
 *     taking ef_search candidates, returning fewer than k. Rows are re-sorted by score here,
 *     since relaxed order may return them slightly out of order.
 *   - `exact` otherwise (PostgreSQL without pgvector): `real[]` arrays, cosine computed in SQL
 *     over every chunk of the collection that passes the filter. Cost: O(chunks × dimension)
 *     per query in the server, no index; fine for thousands of chunks, slow for millions.
 * - Filters: the compiled SQL applies in the WHERE of both legs, before LIMIT.
 * - Windows (`knowledge.vector_windows`): `kb_windows` holds each chunk's window vectors (same
 *   column type as the chunk vectors, one partial HNSW index per dimension under pgvector),
 *   joined to the chunk and its document so the filter is in the same WHERE as for chunk
 *   vectors. pgvector: k × WINDOW_OVERFETCH nearest windows (iterative scan), max-pooled per
 *   chunk, exact max over the filtered windows when fewer than k chunks come out; exact: the
 *   max over every filtered window, grouped in SQL. `kb_chunks.windows` counts a chunk's windows
 *   (added with 0 to older tables); chunks with none are searched by their chunk vector,
 *   restricted to `windows = 0`, and merged by score. No windows in a collection: the old path.
 */
import pg from 'pg'
import { inTransaction as transaction, withTimeout } from '../../../kernel/contract/index.js'
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
import { lexicalSql, tsvLength } from './postgres-lexical.js'
import { searchTerms } from './search-terms.js'

export interface PostgresKnowledgeOptions {
  url: string
  /** A fixed identifier from config (checked below), never request text. */
  schema: string
  /** Connections in the pool (PGlite served over a socket takes one). */
  poolSize?: number
  log?: (line: string) => void
}

const schemaSql = (embeddingType: string) => `
CREATE TABLE IF NOT EXISTS kb_collections (
  id BIGSERIAL PRIMARY KEY, project TEXT NOT NULL, name TEXT NOT NULL, dimension INTEGER NOT NULL, embedding_model TEXT, created_at BIGINT NOT NULL,
  UNIQUE (project, name)
);
CREATE TABLE IF NOT EXISTS kb_documents (
  id BIGSERIAL PRIMARY KEY, collection BIGINT NOT NULL REFERENCES kb_collections (id) ON DELETE CASCADE,
  source_name TEXT NOT NULL, url TEXT, tags JSONB NOT NULL, metadata JSONB NOT NULL, updated_at BIGINT NOT NULL,
  UNIQUE (collection, source_name)
);
CREATE TABLE IF NOT EXISTS kb_chunks (
  id BIGSERIAL PRIMARY KEY, collection BIGINT NOT NULL REFERENCES kb_collections (id) ON DELETE CASCADE,
  document BIGINT NOT NULL REFERENCES kb_documents (id) ON DELETE CASCADE,
  idx INTEGER NOT NULL CHECK (idx >= 0), content TEXT NOT NULL, heading_path JSONB NOT NULL,
  page_number INTEGER, tokens INTEGER NOT NULL CHECK (tokens >= 0),
  dims INTEGER NOT NULL, embedding ${embeddingType} NOT NULL,
  tsv tsvector GENERATED ALWAYS AS (${TSV_EXPRESSION}) STORED
);
CREATE INDEX IF NOT EXISTS kb_chunks_document ON kb_chunks (document, idx);
CREATE INDEX IF NOT EXISTS kb_chunks_collection ON kb_chunks (collection);
CREATE INDEX IF NOT EXISTS kb_chunks_tsv ON kb_chunks USING GIN (tsv);
ALTER TABLE kb_chunks ADD COLUMN IF NOT EXISTS windows INTEGER NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS kb_chunks_windowless ON kb_chunks (collection) WHERE windows = 0;
CREATE TABLE IF NOT EXISTS kb_windows (
  id BIGSERIAL PRIMARY KEY, collection BIGINT NOT NULL REFERENCES kb_collections (id) ON DELETE CASCADE,
  chunk BIGINT NOT NULL REFERENCES kb_chunks (id) ON DELETE CASCADE, dims INTEGER NOT NULL, embedding ${embeddingType} NOT NULL
);
CREATE INDEX IF NOT EXISTS kb_windows_chunk ON kb_windows (chunk);
CREATE INDEX IF NOT EXISTS kb_windows_collection ON kb_windows (collection);
ALTER TABLE kb_collections ADD COLUMN IF NOT EXISTS lexical_chunks BIGINT;
ALTER TABLE kb_collections ADD COLUMN IF NOT EXISTS lexical_length BIGINT;
`

/**
 * The text a chunk is found by: its heading path's strings (page title, section headings)
 * weighted 'A', then its content (weight 'D', the default), both stemmed by the 'english'
 * configuration. BM25 counts an 'A' position HEADING_WEIGHT times a 'D' one (lexicalSql).
 */
const TSV_EXPRESSION = `setweight(to_tsvector('english', heading_path), 'A') || to_tsvector('english', content)`

/**
 * Tables made before headings were indexed: a generated column's expression cannot be altered
 * on PostgreSQL 15, so `tsv` is dropped (its GIN index with it) and added again with the new
 * expression, which rewrites the table and recomputes every chunk's tsvector once, under the
 * schema lock; then the index is made again.
 */
async function migrateTsv(client: pg.PoolClient, schema: string, log?: (line: string) => void): Promise<void> {
  const r = await client.query<{ generation_expression: string | null }>(
    `SELECT generation_expression FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'kb_chunks' AND column_name = 'tsv'`,
    [schema],
  )
  const expression = r.rows[0]?.generation_expression
  if (!expression || expression.includes('heading_path')) return
  await client.query(`ALTER TABLE kb_chunks DROP COLUMN tsv;
    ALTER TABLE kb_chunks ADD COLUMN tsv tsvector GENERATED ALWAYS AS (${TSV_EXPRESSION}) STORED;
    CREATE INDEX IF NOT EXISTS kb_chunks_tsv ON kb_chunks USING GIN (tsv);`)
  // The lengths changed with the headings: the BM25 statistics are counted again below.
  await client.query('UPDATE kb_collections SET lexical_chunks = NULL, lexical_length = NULL')
  log?.('knowledge store: text index rebuilt with heading paths (tsv column recomputed)')
}

/**
 * The lexical leg's BM25 statistics per collection (postgres-lexical.ts): its chunks and the sum
 * of their lengths, kept in step by every write in the same transaction, so a search reads one
 * row. NULL in collections made before the columns existed (or after migrateTsv): counted here
 * once, over their chunks, at open.
 */
async function countLexicalStats(client: pg.PoolClient, log?: (line: string) => void): Promise<void> {
  const r = await client.query(`UPDATE kb_collections k SET lexical_chunks = s.chunks, lexical_length = s.length
    FROM (SELECT k2.id, count(c.id) AS chunks, coalesce(sum(${tsvLength('c.tsv')}), 0) AS length
      FROM kb_collections k2 LEFT JOIN kb_chunks c ON c.collection = k2.id WHERE k2.lexical_chunks IS NULL GROUP BY k2.id) s
    WHERE k.id = s.id`)
  if (r.rowCount) log?.(`knowledge store: BM25 statistics counted for ${r.rowCount} collection(s)`)
}

/** Adds `chunks` chunks of total length `length` (negative: removed) to a collection's BM25 statistics. */
const addLexicalStats = (c: pg.PoolClient, collection: string, chunks: number, length: number) =>
  c.query(
    'UPDATE kb_collections SET lexical_chunks = lexical_chunks + $2, lexical_length = lexical_length + $3 WHERE id = $1',
    [collection, chunks, length],
  )

/**
 * Deletes a document's chunks (their windows cascade), then the document. Returns whether it
 * existed and what it took from the statistics, for the caller to subtract last in its transaction.
 */
async function removeDocument(
  c: pg.PoolClient,
  collection: string,
  sourceName: string,
): Promise<{ existed: boolean; chunks: number; length: number }> {
  const gone = await c.query<{ chunks: string; length: string }>(
    `WITH gone AS (DELETE FROM kb_chunks c USING kb_documents d
        WHERE d.id = c.document AND d.collection = $1 AND d.source_name = $2 RETURNING ${tsvLength('c.tsv')} AS length)
      SELECT count(*) AS chunks, coalesce(sum(length), 0) AS length FROM gone`,
    [collection, sourceName],
  )
  const r = await c.query('DELETE FROM kb_documents WHERE collection = $1 AND source_name = $2', [
    collection,
    sourceName,
  ])
  return { existed: (r.rowCount ?? 0) > 0, chunks: Number(gone.rows[0]!.chunks), length: Number(gone.rows[0]!.length) }
}

/** One partial HNSW index per dimension (a checked integer) on each vector table: HNSW needs a fixed size, collections differ. */
const hnswSql = (dimension: number) => `
CREATE INDEX IF NOT EXISTS kb_chunks_hnsw_${dimension} ON kb_chunks USING hnsw ((embedding::vector(${dimension})) vector_cosine_ops) WHERE dims = ${dimension};
CREATE INDEX IF NOT EXISTS kb_windows_hnsw_${dimension} ON kb_windows USING hnsw ((embedding::vector(${dimension})) vector_cosine_ops) WHERE dims = ${dimension};
`

const CHUNK_COLUMNS =
  'c.id, c.document, d.source_name, d.url, d.tags, d.metadata, c.idx, c.content, c.heading_path, c.page_number, c.tokens'
const JOIN_DOCUMENT = 'JOIN kb_documents d ON d.id = c.document'
const columns: FilterColumns = {
  dialect: 'postgres',
  sourceName: 'd.source_name',
  url: 'd.url',
  pageNumber: 'c.page_number',
  tags: 'd.tags',
  metadata: 'd.metadata',
}

interface ChunkRow {
  id: string
  document: string
  source_name: string
  url: string | null
  tags: string[]
  metadata: Record<string, string | number | boolean | null>
  idx: number
  content: string
  heading_path: string[]
  page_number: number | null
  tokens: number
  score?: number
}
interface Collection {
  id: string
  name: string
  dimension: number
}

function chunkFromRow(r: ChunkRow): StoredChunk {
  return {
    id: Number(r.id),
    documentId: Number(r.document),
    sourceName: r.source_name,
    url: r.url,
    tags: r.tags,
    metadata: r.metadata,
    index: r.idx,
    content: r.content,
    headingPath: r.heading_path,
    pageNumber: r.page_number,
    tokens: r.tokens,
  }
}
const scored = (rows: ChunkRow[]): ScoredChunk[] => rows.map((r) => ({ ...chunkFromRow(r), score: Number(r.score) }))

function where(filter: CompiledFilter | undefined, next: number): { sql: string; params: unknown[] } {
  if (!filter) return { sql: '', params: [] }
  const f = filter(columns, next)
  return { sql: ` AND (${f.sql})`, params: [...f.params] }
}

const vectorText = (v: Float32Array) => `[${Array.from(v).join(',')}]`

export async function openPostgresKnowledge(options: PostgresKnowledgeOptions): Promise<KnowledgeStore> {
  if (!/^[a-z_][a-z0-9_]*$/.test(options.schema))
    throw new Error(`knowledge store: schema "${options.schema}" is not a plain identifier`)
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 4,
    // public stays on the path: an extension installed there (vector) must resolve its type.
    options: `-c search_path=${options.schema},public`,
    connectionTimeoutMillis: 5000,
  })
  pool.on('error', () => undefined)

  let vectors: 'pgvector' | 'exact'
  const client = await pool.connect()
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', ['sluice-knowledge-schema'])
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${options.schema}`)
      const hasExtension = await client.query('CREATE EXTENSION IF NOT EXISTS vector').then(
        () => true,
        () => false,
      )
      // A table made earlier in exact mode stays exact: its column type decides, not today's server.
      const existing = await client.query<{ udt_name: string }>(
        `SELECT udt_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'kb_chunks' AND column_name = 'embedding'`,
        [options.schema],
      )
      const column = existing.rows[0]?.udt_name
      vectors = column ? (column === 'vector' ? 'pgvector' : 'exact') : hasExtension ? 'pgvector' : 'exact'
      await client.query(schemaSql(vectors === 'pgvector' ? 'vector' : 'real[]'))
      await migrateTsv(client, options.schema, options.log)
      await countLexicalStats(client, options.log)
      if (vectors === 'pgvector') {
        // Tables made before windows existed: the window index of every dimension in use.
        const dims = await client.query<{ dimension: number }>('SELECT DISTINCT dimension FROM kb_collections')
        for (const { dimension } of dims.rows) await client.query(hnswSql(dimension))
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', ['sluice-knowledge-schema'])
    }
  } catch (err) {
    client.release()
    await pool.end()
    throw err
  }
  client.release()
  options.log?.(
    vectors === 'pgvector'
      ? 'knowledge store: postgres, vectors by pgvector (HNSW, vector_cosine_ops, iterative scan for filtered searches)'
      : 'knowledge store: postgres, pgvector not available: vectors stored as real[] and scored exactly (cosine over every candidate chunk)',
  )

  const inTransaction = <T>(work: (c: pg.PoolClient) => Promise<T>): Promise<T> => transaction(pool, work)

  const resolve = async (project: string, name: string): Promise<Collection> => {
    const r = await pool.query<{ id: string; name: string; dimension: number }>(
      'SELECT id, name, dimension FROM kb_collections WHERE project = $1 AND name = $2',
      [project, name],
    )
    if (!r.rows[0]) throw missingCollection(name)
    return r.rows[0]
  }
  const infos = async (project: string, name?: string): Promise<CollectionInfo[]> => {
    const r = await pool.query<{
      name: string
      dimension: number
      embedding_model: string | null
      created_at: string
      documents: string
      chunks: string
    }>(
      `SELECT k.name, k.dimension, k.embedding_model, k.created_at,
         (SELECT count(*) FROM kb_documents WHERE collection = k.id) AS documents,
         (SELECT count(*) FROM kb_chunks WHERE collection = k.id) AS chunks
       FROM kb_collections k WHERE k.project = $1 ${name === undefined ? '' : 'AND k.name = $2'} ORDER BY k.name`,
      name === undefined ? [project] : [project, name],
    )
    return r.rows.map((x) => ({
      name: x.name,
      dimension: x.dimension,
      embeddingModel: x.embedding_model,
      createdAt: Number(x.created_at),
      documents: Number(x.documents),
      chunks: Number(x.chunks),
    }))
  }
  const documentRows = async (collection: string, sourceName?: string): Promise<StoredDocument[]> => {
    const r = await pool.query<{
      id: string
      source_name: string
      url: string | null
      tags: string[]
      metadata: Record<string, string | number | boolean | null>
      updated_at: string
      chunks: string
    }>(
      `SELECT d.id, d.source_name, d.url, d.tags, d.metadata, d.updated_at, (SELECT count(*) FROM kb_chunks WHERE document = d.id) AS chunks
       FROM kb_documents d WHERE d.collection = $1 ${sourceName === undefined ? '' : 'AND d.source_name = $2'} ORDER BY d.source_name`,
      sourceName === undefined ? [collection] : [collection, sourceName],
    )
    return r.rows.map((x) => ({
      id: Number(x.id),
      sourceName: x.source_name,
      url: x.url,
      tags: x.tags,
      metadata: x.metadata,
      chunks: Number(x.chunks),
      updatedAt: Number(x.updated_at),
    }))
  }
  const embeddingParam = (v: Float32Array) => (vectors === 'pgvector' ? vectorText(v) : Array.from(v))
  /** Exact cosine of `column` against $1 (a real[]), in SQL. */
  const exactCosine = (column: string) =>
    `(SELECT sum(a::float8 * b) / NULLIF(sqrt(sum(a::float8 * a)) * sqrt(sum(b::float8 * b)), 0) FROM unnest(${column}, $1::real[]) AS t (a, b))`

  /** Chunk vectors (`extra`: windowless chunks only, a condition in the same WHERE as the filter). */
  const chunkVectors = async (
    collection: Collection,
    embedding: Float32Array,
    limit: number,
    filter: CompiledFilter | undefined,
    extra = '',
  ): Promise<ScoredChunk[]> => {
    const w = where(filter, 4)
    const params = [embeddingParam(embedding), collection.id, limit, ...w.params]
    if (vectors === 'exact') {
      const r = await pool.query<ChunkRow>(
        `SELECT ${CHUNK_COLUMNS}, ${exactCosine('c.embedding')} AS score
          FROM kb_chunks c ${JOIN_DOCUMENT} WHERE c.collection = $2${extra}${w.sql} ORDER BY score DESC NULLS LAST, c.id LIMIT $3`,
        params,
      )
      return scored(r.rows)
    }
    const d = collection.dimension
    const rows = await inTransaction(async (c) => {
      await c.query('SET LOCAL hnsw.iterative_scan = relaxed_order')
      const r = await c.query<ChunkRow>(
        `SELECT ${CHUNK_COLUMNS}, 1 - (c.embedding::vector(${d}) <=> $1::vector(${d})) AS score
          FROM kb_chunks c ${JOIN_DOCUMENT} WHERE c.dims = ${d} AND c.collection = $2${extra}${w.sql}
          ORDER BY c.embedding::vector(${d}) <=> $1::vector(${d}) LIMIT $3`,
        params,
      )
      return r.rows
    })
    return scored(rows).sort((a, b) => b.score - a.score)
  }

  /** Chunks by their best window, the filter in the same WHERE: the exact max in SQL, or HNSW windows max-pooled here. */
  const windowVectors = async (
    collection: Collection,
    embedding: Float32Array,
    limit: number,
    filter: CompiledFilter | undefined,
  ): Promise<ScoredChunk[]> => {
    const w = where(filter, 4)
    const d = collection.dimension
    const exactMax = async (score: string) => {
      const r = await pool.query<ChunkRow>(
        `SELECT ${CHUNK_COLUMNS}, b.score FROM (
            SELECT x.chunk, max(${score}) AS score FROM kb_windows x JOIN kb_chunks c ON c.id = x.chunk ${JOIN_DOCUMENT}
            WHERE x.collection = $2${w.sql} GROUP BY x.chunk) b
          JOIN kb_chunks c ON c.id = b.chunk ${JOIN_DOCUMENT} ORDER BY b.score DESC NULLS LAST, c.id LIMIT $3`,
        [embeddingParam(embedding), collection.id, limit, ...w.params],
      )
      return scored(r.rows)
    }
    if (vectors === 'exact') return exactMax(exactCosine('x.embedding'))
    const rows = await inTransaction(async (c) => {
      await c.query('SET LOCAL hnsw.iterative_scan = relaxed_order')
      const r = await c.query<ChunkRow>(
        `SELECT ${CHUNK_COLUMNS}, 1 - (x.embedding::vector(${d}) <=> $1::vector(${d})) AS score
          FROM kb_windows x JOIN kb_chunks c ON c.id = x.chunk ${JOIN_DOCUMENT} WHERE x.dims = ${d} AND x.collection = $2${w.sql}
          ORDER BY x.embedding::vector(${d}) <=> $1::vector(${d}) LIMIT $3`,
        [embeddingParam(embedding), collection.id, boundK(limit * WINDOW_OVERFETCH), ...w.params],
      )
      return r.rows
    })
    const best = bestPerChunk(scored(rows), limit)
    return best.length >= limit ? best : exactMax(`1 - (x.embedding::vector(${d}) <=> $1::vector(${d}))`)
  }

  return {
    kind: 'postgres',
    vectors,

    async ping() {
      // A bounded wait: a probe must answer even when the server is gone.
      await withTimeout(pool.query('SELECT 1'), 2000, 'PostgreSQL did not answer within 2 s')
    },

    async createCollection(project, name, { dimension, embeddingModel }) {
      checkDimension(dimension)
      const inserted = await pool.query(
        'INSERT INTO kb_collections (project, name, dimension, embedding_model, created_at, lexical_chunks, lexical_length) VALUES ($1, $2, $3, $4, $5, 0, 0) ON CONFLICT (project, name) DO NOTHING',
        [project, name, dimension, embeddingModel ?? null, Date.now()],
      )
      if (inserted.rowCount === 0) throw collectionExists(name)
      if (vectors === 'pgvector') await pool.query(hnswSql(dimension))
      return (await infos(project, name))[0]!
    },
    async listCollections(project) {
      return infos(project)
    },
    async getCollection(project, name) {
      const found = (await infos(project, name))[0]
      if (!found) throw missingCollection(name)
      return found
    },
    async deleteCollection(project, name) {
      const collection = await resolve(project, name)
      // The foreign keys cascade to documents and chunks, vectors included (they live in the chunk rows).
      await pool.query('DELETE FROM kb_collections WHERE id = $1', [collection.id])
    },

    async upsertDocument(project, name, document: DocumentInput, chunks: readonly EmbeddedChunk[]) {
      const collection = await resolve(project, name)
      checkChunkEmbeddings(name, collection.dimension, chunks)
      await inTransaction(async (c) => {
        const old = await removeDocument(c, collection.id, document.sourceName)
        const doc = await c.query<{ id: string }>(
          'INSERT INTO kb_documents (collection, source_name, url, tags, metadata, updated_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id',
          [
            collection.id,
            document.sourceName,
            document.url ?? null,
            JSON.stringify(document.tags ?? []),
            JSON.stringify(document.metadata ?? {}),
            Date.now(),
          ],
        )
        const cast = vectors === 'pgvector' ? '::vector' : '::real[]'
        let length = 0
        for (const ch of chunks) {
          const windows = ch.windows ?? []
          const row = await c.query<{ id: string; length: string }>(
            `INSERT INTO kb_chunks (collection, document, idx, content, heading_path, page_number, tokens, dims, embedding, windows) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9${cast}, $10) RETURNING id, ${tsvLength('tsv')} AS length`,
            [
              collection.id,
              doc.rows[0]!.id,
              ch.index,
              ch.content,
              JSON.stringify(ch.headingPath),
              ch.pageNumber ?? null,
              ch.tokens,
              collection.dimension,
              embeddingParam(ch.embedding),
              windows.length,
            ],
          )
          length += Number(row.rows[0]!.length)
          if (windows.length === 0) continue
          // One statement per chunk: its windows as an array of vectors (text form under pgvector), unnested.
          const arrayCast = vectors === 'pgvector' ? '::vector[]' : '::text[]'
          const values = windows.map((w) => (vectors === 'pgvector' ? vectorText(w) : `{${Array.from(w).join(',')}}`))
          await c.query(
            `INSERT INTO kb_windows (collection, chunk, dims, embedding) SELECT $1, $2, $3, e${vectors === 'pgvector' ? '' : '::real[]'} FROM unnest($4${arrayCast}) AS e`,
            [collection.id, row.rows[0]!.id, collection.dimension, values],
          )
        }
        // Last, so the collection's row is locked only until the commit that follows.
        await addLexicalStats(c, collection.id, chunks.length - old.chunks, length - old.length)
      })
      return (await documentRows(collection.id, document.sourceName))[0]!
    },
    async listDocuments(project, name) {
      return documentRows((await resolve(project, name)).id)
    },
    async deleteDocument(project, name, sourceName) {
      const collection = await resolve(project, name)
      const existed = await inTransaction(async (c) => {
        const old = await removeDocument(c, collection.id, sourceName)
        await addLexicalStats(c, collection.id, -old.chunks, -old.length)
        return old.existed
      })
      if (!existed) throw missingDocument(name, sourceName)
    },

    async lexical(project, name, query, k, filter) {
      const collection = await resolve(project, name)
      const terms = searchTerms(query)
      if (terms.length === 0) return []
      const w = where(filter, 4)
      const r = await pool.query<ChunkRow>(lexicalSql(CHUNK_COLUMNS, JOIN_DOCUMENT, w.sql), [
        terms.join(' '),
        collection.id,
        boundK(k),
        ...w.params,
      ])
      return scored(r.rows)
    },

    async vector(project, name, embedding, k, filter) {
      const collection = await resolve(project, name)
      checkEmbedding(name, collection.dimension, embedding, 'query embedding')
      const limit = boundK(k)
      const flags = await pool.query<{ windowed: boolean; windowless: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM kb_windows WHERE collection = $1) AS windowed,
          EXISTS (SELECT 1 FROM kb_chunks WHERE collection = $1 AND windows = 0) AS windowless`,
        [collection.id],
      )
      const { windowed, windowless } = flags.rows[0]!
      if (!windowed) return chunkVectors(collection, embedding, limit, filter)
      const byWindow = await windowVectors(collection, embedding, limit, filter)
      if (!windowless) return byWindow
      return bestPerChunk(
        [...byWindow, ...(await chunkVectors(collection, embedding, limit, filter, ' AND c.windows = 0'))],
        limit,
      )
    },

    async neighbors(project, name, chunkIds, window) {
      const collection = await resolve(project, name)
      if (chunkIds.length === 0) return []
      const r = await pool.query<ChunkRow>(
        `SELECT DISTINCT ${CHUNK_COLUMNS} FROM kb_chunks h
          JOIN kb_chunks c ON c.document = h.document AND c.idx BETWEEN h.idx - $1 AND h.idx + $1 ${JOIN_DOCUMENT}
          WHERE h.collection = $2 AND h.id = ANY ($3::bigint[]) ORDER BY c.document, c.idx`,
        [Math.max(0, Math.floor(window)), collection.id, chunkIds],
      )
      return r.rows.map(chunkFromRow)
    },
    async documentChunks(project, name, documentIds) {
      const collection = await resolve(project, name)
      if (documentIds.length === 0) return []
      const r = await pool.query<ChunkRow>(
        `SELECT ${CHUNK_COLUMNS} FROM kb_chunks c ${JOIN_DOCUMENT}
          WHERE c.collection = $1 AND c.document = ANY ($2::bigint[]) ORDER BY c.document, c.idx`,
        [collection.id, documentIds],
      )
      return r.rows.map(chunkFromRow)
    },

    async close() {
      await pool.end()
    },
  }
}
