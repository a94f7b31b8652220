/**
 * The knowledge base's vocabulary, shared by its parts: what a document and a chunk are, and
 * how a filter meets a store. Collections belong to a project; a project sees only its own.
 */

/** Custom metadata of a document: flat, typed values (lists go in `tags`). */
export type MetadataValue = string | number | boolean | null
export type Metadata = Readonly<Record<string, MetadataValue>>

export interface DocumentInput {
  /** Unique within a collection: adding a document with a known `source_name` replaces it. */
  readonly sourceName: string
  readonly url?: string
  readonly tags?: readonly string[]
  readonly metadata?: Metadata
}

/** One piece of a document, as the chunker makes it and the stores keep it. */
export interface Chunk {
  /** Position in its document, from 0. */
  readonly index: number
  readonly content: string
  /** Headings above the chunk, outermost first (`['Install', 'On Debian']`). */
  readonly headingPath: readonly string[]
  /** 1-based page of a PDF where the chunk starts; undefined for other formats. */
  readonly pageNumber?: number
  /** Tokens of `content` by the chunker's tokenizer. */
  readonly tokens: number
}

/** A SQL condition with its bound parameters: never a spliced value. */
export interface SqlFragment {
  readonly sql: string
  readonly params: readonly unknown[]
}

/**
 * How a store names the filterable fields of a chunk's row, so one filter compiles for both
 * stores. Each member is an SQL expression of the store's own making, never user text.
 */
export interface FilterColumns {
  readonly dialect: 'sqlite' | 'postgres'
  readonly sourceName: string
  readonly url: string
  readonly pageNumber: string
  /** The tags: JSON text (SQLite) or jsonb (PostgreSQL) holding an array of strings. */
  readonly tags: string
  /** The custom metadata: JSON text (SQLite) or jsonb (PostgreSQL) holding an object. */
  readonly metadata: string
}

/**
 * A filter ready for a store: given the store's columns and the number of the first free
 * parameter (`$n` in PostgreSQL; ignored by SQLite's `?`), its condition and parameters.
 */
export type CompiledFilter = (columns: FilterColumns, firstParam: number) => SqlFragment
