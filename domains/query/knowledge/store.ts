/**
 * The knowledge base's store: collections of a project, their documents, the chunks of each
 * document with one embedding apiece, and the two searches (lexical and vector) that retrieval
 * fuses. Two implementations keep the same promises (sqlite-knowledge.ts, postgres-knowledge.ts)
 * and one contract suite checks both.
 *
 * Isolation is part of the signature: every call names its project, and a collection of
 * another project answers exactly like one that does not exist (the same 404, same message).
 */
import { GatewayError } from '../../../kernel/contract/index.js'
import type { Chunk, CompiledFilter, DocumentInput, Metadata } from './model.js'

export interface CollectionInfo {
  readonly name: string
  /** Every embedding of the collection has exactly this many dimensions, fixed at creation. */
  readonly dimension: number
  /** The model that embeds its chunks and queries, fixed at creation (null: the deployment's default). */
  readonly embeddingModel: string | null
  readonly createdAt: number
  readonly documents: number
  readonly chunks: number
}

export interface StoredDocument {
  readonly id: number
  readonly sourceName: string
  readonly url: string | null
  readonly tags: readonly string[]
  readonly metadata: Metadata
  readonly chunks: number
  readonly updatedAt: number
}

/** A chunk as the caller writes it: the chunker's chunk plus its embedding. */
export interface EmbeddedChunk extends Chunk {
  readonly embedding: Float32Array
  /**
   * Vectors of the chunk's windows (windows.ts), when ingestion makes them
   * (`knowledge.vector_windows`). Absent or empty: the vector leg scores the chunk by
   * `embedding`, as before windows existed.
   */
  readonly windows?: readonly Float32Array[]
}

/** A chunk as the stores return it, with its document's fields a filter or an answer needs. */
export interface StoredChunk {
  readonly id: number
  readonly documentId: number
  readonly sourceName: string
  readonly url: string | null
  readonly tags: readonly string[]
  readonly metadata: Metadata
  readonly index: number
  readonly content: string
  readonly headingPath: readonly string[]
  readonly pageNumber: number | null
  readonly tokens: number
}

/** A search hit: higher `score` is better in both legs (bm25 negated, ts_rank_cd, 1 − cosine distance). */
export interface ScoredChunk extends StoredChunk {
  readonly score: number
}

export interface KnowledgeStore {
  /** Which implementation, and how it scores vectors (for logs and docs). */
  readonly kind: 'sqlite' | 'postgres'
  readonly vectors: 'sqlite-vec' | 'pgvector' | 'exact'

  /** 409 when the project already has a collection of that name. */
  createCollection(
    project: string,
    name: string,
    options: { dimension: number; embeddingModel?: string },
  ): Promise<CollectionInfo>
  listCollections(project: string): Promise<CollectionInfo[]>
  /** 404 when missing (or another project's). */
  getCollection(project: string, name: string): Promise<CollectionInfo>
  /** Removes the collection with its documents, chunks and vectors; 404 when missing. */
  deleteCollection(project: string, name: string): Promise<void>

  /**
   * Adds the document, or replaces the one with the same `sourceName` with all its chunks, in
   * one transaction: when any write fails the collection is left exactly as it was.
   */
  upsertDocument(
    project: string,
    collection: string,
    document: DocumentInput,
    chunks: readonly EmbeddedChunk[],
  ): Promise<StoredDocument>
  listDocuments(project: string, collection: string): Promise<StoredDocument[]>
  /** 404 when the document (or the collection) is missing. */
  deleteDocument(project: string, collection: string, sourceName: string): Promise<void>

  /** Best `k` chunks for the words of `query` (never passed raw to the engine). */
  lexical(
    project: string,
    collection: string,
    query: string,
    k: number,
    filter?: CompiledFilter,
  ): Promise<ScoredChunk[]>
  /**
   * Best `k` chunks by cosine similarity; the filter applies before the `k` are chosen. A chunk
   * stored with windows scores by its best window (max over its windows); a chunk without them
   * (windows off, or stored before windows existed) by its chunk vector. Both are cosines of the
   * same query vector, so the two kinds rank in one list.
   */
  vector(
    project: string,
    collection: string,
    embedding: Float32Array,
    k: number,
    filter?: CompiledFilter,
  ): Promise<ScoredChunk[]>
  /** The chunks within ±`window` positions of each given chunk, in their documents; document order. */
  neighbors(project: string, collection: string, chunkIds: readonly number[], window: number): Promise<StoredChunk[]>
  /** Every chunk of the given documents, in document order. */
  documentChunks(project: string, collection: string, documentIds: readonly number[]): Promise<StoredChunk[]>

  /** A cheap round trip (`SELECT 1`), for the readiness probe; rejects when the store does not answer. */
  ping(): Promise<void>

  close(): Promise<void>
}

/** The one answer for a collection that is missing or belongs to another project. */
export function missingCollection(name: string): GatewayError {
  return new GatewayError(404, `collection "${name}" does not exist`, { type: 'not_found_error' })
}

export function missingDocument(collection: string, sourceName: string): GatewayError {
  return new GatewayError(404, `document "${sourceName}" does not exist in collection "${collection}"`, {
    type: 'not_found_error',
  })
}

export function collectionExists(name: string): GatewayError {
  return new GatewayError(409, `collection "${name}" already exists`, {
    type: 'invalid_request_error',
    code: 'invalid_request',
  })
}

/** Largest dimension accepted: pgvector's HNSW limit for `vector`, far above sentence models. */
export const MAX_DIMENSION = 2000

export function checkDimension(dimension: number): void {
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > MAX_DIMENSION)
    throw new GatewayError(400, `dimension must be an integer from 1 to ${MAX_DIMENSION}, got ${dimension}`, {
      type: 'invalid_request_error',
      code: 'invalid_request',
    })
}

/** A clear 400 naming both sizes, before anything is written or searched. */
export function checkEmbedding(collection: string, expected: number, embedding: Float32Array, what: string): void {
  if (embedding.length !== expected)
    throw new GatewayError(
      400,
      `${what} has ${embedding.length} dimensions; collection "${collection}" holds ${expected}-dimensional embeddings`,
      {
        type: 'invalid_request_error',
        code: 'invalid_request',
      },
    )
}

/** Words of a query: letters, digits and underscores only, so no engine operator survives. */
export function queryTokens(query: string): string[] {
  return query.match(/[\p{L}\p{N}_]+/gu)?.slice(0, 64) ?? []
}

/** A bounded `k`: at least 1, at most the vector engines' own ceiling (sqlite-vec's 4096). */
export function boundK(k: number): number {
  return Math.max(1, Math.min(4096, Math.floor(k)))
}

/** Every vector of the chunks (chunk vectors and window vectors) has the collection's dimension. */
export function checkChunkEmbeddings(collection: string, expected: number, chunks: readonly EmbeddedChunk[]): void {
  chunks.forEach((c, i) => {
    checkEmbedding(collection, expected, c.embedding, `embedding of chunk ${i}`)
    c.windows?.forEach((w, j) => checkEmbedding(collection, expected, w, `embedding of window ${j} of chunk ${i}`))
  })
}

/**
 * One hit per chunk, its best score kept, best first, at most `k`: window hits (several per
 * chunk) max-pooled into chunk hits, and merged with chunk-vector hits of windowless chunks.
 */
export function bestPerChunk(hits: readonly ScoredChunk[], k: number): ScoredChunk[] {
  const best = new Map<number, ScoredChunk>()
  for (const h of hits) {
    const seen = best.get(h.id)
    if (!seen || h.score > seen.score) best.set(h.id, h)
  }
  return [...best.values()].sort((a, b) => b.score - a.score || a.id - b.id).slice(0, k)
}

/** Window hits fetched per chunk wanted: a chunk has about 4-6 windows at 96 tokens, several of which may rank close. */
export const WINDOW_OVERFETCH = 8
