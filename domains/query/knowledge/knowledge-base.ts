/**
 * The knowledge base as the ingestion API and the Query service use it: the store, plus the
 * pipeline that turns a document into stored chunks (read → chunk → embed → upsert).
 *
 * Embedding is a model call, and whatever touches a model goes through a route: the caller
 * passes an `Embed` function (plugins build it on `kernel.call('embeddings', …)`), so this
 * service never reaches a model server itself and every embedding is queued, budgeted and
 * recorded.
 *
 * Atomic: reading, chunking and embedding all finish before the one write, and the store's
 * upsert is one transaction; a failure at any step leaves the collection exactly as it was.
 * Idempotent per `source_name`: the same document ingested twice leaves one copy.
 */
import { GatewayError } from '../../../kernel/contract/index.js'
import type { RetrievalSettingsConfig } from '../../../schemas/retrieval.schema.js'
import { DEFAULT_CHUNKING, type ChunkingOptions } from './chunker.js'
import type { DocumentInput } from './model.js'
import { formatOf } from './readers/format.js'
import { DEFAULT_READER_LIMITS, type ReaderLimits } from './readers/limits.js'
import type { DocumentBytes } from './readers/read-document.js'
import { ReaderPool, type DocumentReaders } from './readers/reader-pool.js'
import { CAUTIOUS_TOKEN_RATIO, cl100kBudget, fitToTokens, isInputTooLong, SAFE_TOKEN_RATIO } from './input-fit.js'
import {
  collectionExists,
  type CollectionInfo,
  type EmbeddedChunk,
  type KnowledgeStore,
  type StoredDocument,
} from './store.js'

/** Embeds `input` with `model`, one vector per input, in order. */
export interface Embed {
  (model: string, input: readonly string[]): Promise<Float32Array[]>
  /**
   * The model's input limit in its own tokens (the catalog's `context_window`), when known:
   * `embedAll` fits every input to it (input-fit.ts) before sending.
   */
  readonly inputTokens?: (model: string) => number | undefined
}

export interface KnowledgeSettings {
  /** The embedding model of a collection created without one. */
  readonly embeddingModel: string
  /** Id of the key whose budget and records carry the embedding calls made for the API. */
  readonly embeddingKey: string
  readonly chunking: ChunkingOptions
  /** `knowledge.readers`: the limits on reading one document, and the reader processes. */
  readonly readers: ReaderLimits
  /**
   * `knowledge.vector_windows.max_tokens`: each chunk is embedded as windows of whole sentences
   * up to this many tokens, and the vector leg scores a chunk by its best window; 0 = off (one
   * vector per chunk, of the whole chunk).
   */
  readonly vectorWindows: { readonly maxTokens: number }
  /** `knowledge.retrieval`: the legs and fusion of searches, the deployment's and per collection (search-settings.ts). */
  readonly retrieval?: RetrievalSettingsConfig
}

/** 96 tokens: the size measured on the retrieval bench (docs/performance.md, "Retrieval quality"). */
export const DEFAULT_VECTOR_WINDOWS = { maxTokens: 96 }

export const DEFAULT_KNOWLEDGE_SETTINGS: KnowledgeSettings = {
  embeddingModel: 'use-lite',
  embeddingKey: 'demo',
  chunking: DEFAULT_CHUNKING,
  readers: DEFAULT_READER_LIMITS,
  vectorWindows: DEFAULT_VECTOR_WINDOWS,
}

/** Inputs per embeddings call: well under the route's 2048, so one call stays a modest request. */
export const EMBED_BATCH = 128

/** Names of projects and collections: they appear in paths, logs and messages. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/
export const MAX_SOURCE_NAME = 1024

export function checkName(what: 'project' | 'collection', name: string): void {
  if (!NAME.test(name)) {
    throw new GatewayError(
      400,
      `${what} name ${JSON.stringify(name.slice(0, 140))} is invalid: 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit`,
      { code: 'invalid_request' },
    )
  }
}

export function checkSourceName(name: string): void {
  if (name.length === 0 || name.length > MAX_SOURCE_NAME || /[\u0000-\u001f\u007f]/.test(name)) {
    throw new GatewayError(400, `source_name must be 1 to ${MAX_SOURCE_NAME} characters without control characters`, {
      code: 'invalid_request',
    })
  }
}

/**
 * The declared type of a document sent as text: its `content_type` when given, else the
 * source name's extension when it names a format we read, else plain text.
 */
export function textContentType(sourceName: string, contentType?: string): string | undefined {
  if (contentType) return contentType
  try {
    formatOf({ fileName: sourceName })
    return undefined
  } catch {
    return 'text/plain'
  }
}

export class KnowledgeBase {
  /** Where documents are read: child processes (readers/reader-pool.ts), shared with chat uploads. */
  readonly readers: DocumentReaders

  constructor(
    readonly store: KnowledgeStore,
    readonly settings: KnowledgeSettings = DEFAULT_KNOWLEDGE_SETTINGS,
    readers?: DocumentReaders,
  ) {
    this.readers = readers ?? new ReaderPool(settings.readers)
  }

  /** The dimension is learnt by embedding one probe with the collection's model (one metered call). */
  async createCollection(
    project: string,
    name: string,
    embeddingModel: string | undefined,
    embed: Embed,
  ): Promise<CollectionInfo> {
    checkName('project', project)
    checkName('collection', name)
    const model = embeddingModel ?? this.settings.embeddingModel
    if ((await this.store.listCollections(project)).some((c) => c.name === name)) {
      throw collectionExists(name)
    }
    const [probe] = await embed(model, ['dimension probe'])
    if (!probe) throw new GatewayError(502, `embedding model ${model} returned no vector`)
    return this.store.createCollection(project, name, { dimension: probe.length, embeddingModel: model })
  }

  listCollections(project: string): Promise<CollectionInfo[]> {
    checkName('project', project)
    return this.store.listCollections(project)
  }

  getCollection(project: string, name: string): Promise<CollectionInfo> {
    checkName('project', project)
    checkName('collection', name)
    return this.store.getCollection(project, name)
  }

  async deleteCollection(project: string, name: string): Promise<void> {
    await this.getCollection(project, name)
    return this.store.deleteCollection(project, name)
  }

  modelOf(collection: CollectionInfo): string {
    return collection.embeddingModel ?? this.settings.embeddingModel
  }

  /**
   * Adds or replaces the document `input.sourceName`: read → chunk → embed, then one atomic
   * upsert. The collection is checked first, so a missing one costs no reading or embedding.
   */
  async ingest(
    project: string,
    collectionName: string,
    input: DocumentInput,
    content: DocumentBytes,
    embed: Embed,
    signal?: AbortSignal,
  ): Promise<StoredDocument> {
    checkSourceName(input.sourceName)
    const collection = await this.getCollection(project, collectionName)
    // Read, chunked and cut into windows off the event loop; a document over a reader limit is refused by name.
    const { chunks, inputs } = await namedRefusal(
      input.sourceName,
      this.readers.chunks(content, this.settings.chunking, this.settings.vectorWindows.maxTokens, signal),
    )
    if (chunks.length === 0) {
      throw new GatewayError(
        400,
        `document "${input.sourceName}" has no text to index (a scanned PDF has no text layer)`,
        { code: 'invalid_request' },
      )
    }
    const vectors = await this.embedChunks(this.modelOf(collection), inputs, embed)
    const embedded: EmbeddedChunk[] = chunks.map((c, i) => ({ ...c, ...vectors[i]! }))
    return this.store.upsertDocument(project, collectionName, input, embedded)
  }

  async listDocuments(project: string, collection: string): Promise<StoredDocument[]> {
    await this.getCollection(project, collection)
    return this.store.listDocuments(project, collection)
  }

  async deleteDocument(project: string, collection: string, sourceName: string): Promise<void> {
    checkSourceName(sourceName)
    await this.getCollection(project, collection)
    return this.store.deleteDocument(project, collection, sourceName)
  }

  /**
   * Each chunk's vector, and its window vectors unless windows are off, from each chunk's
   * embedding inputs (windows.ts, embeddingInputs) sent as one list (batched by embedAll): the
   * model reads each text once. A chunk that is one window is embedded whole (its vector is its
   * one window's); a longer one only as its windows, its own vector being their mean,
   * normalised. The vector leg scores such a chunk by its best window and never reads that
   * vector (store.ts), so embedding the whole chunk too would cost the model's longest input for
   * nothing (docs/decisions.md, issue 28).
   */
  async embedChunks(
    model: string,
    inputs: readonly (readonly string[])[],
    embed: Embed,
  ): Promise<{ embedding: Float32Array; windows?: Float32Array[] }[]> {
    const flat = await this.embedAll(model, inputs.flat(), embed)
    if (this.settings.vectorWindows.maxTokens <= 0) return flat.map((embedding) => ({ embedding }))
    let next = 0
    return inputs.map((t) => {
      const windows = flat.slice(next, (next += t.length))
      return { embedding: windows.length === 1 ? windows[0]! : meanDirection(windows), windows }
    })
  }

  /**
   * Embeds in batches of EMBED_BATCH, checking that each answer has one vector per input.
   * Every input is first fitted to the model's input limit (`embed.inputTokens`, the catalog's
   * `context_window`) by the safe estimate of input-fit.ts: a longer text keeps its head. Such
   * a text is a query, or a whole chunk when windows are off (windows, of
   * `vector_windows.max_tokens`, are far under any limit). When the server still refuses a batch as too long, it is refitted
   * once at the cautious ratio; a second refusal fails with the server's message (502).
   */
  async embedAll(model: string, texts: readonly string[], embed: Embed): Promise<Float32Array[]> {
    const limit = embed.inputTokens?.(model)
    const fit = (batch: readonly string[], ratio: number) =>
      limit === undefined ? batch : batch.map((t) => fitToTokens(t, cl100kBudget(limit, ratio)).text)
    const out: Float32Array[] = []
    for (let i = 0; i < texts.length; i += EMBED_BATCH) {
      const batch = texts.slice(i, i + EMBED_BATCH)
      let vectors: Float32Array[]
      try {
        vectors = await embed(model, fit(batch, SAFE_TOKEN_RATIO))
      } catch (err) {
        if (limit === undefined || !(err instanceof GatewayError) || !isInputTooLong(err.message)) throw err
        vectors = await embed(model, fit(batch, CAUTIOUS_TOKEN_RATIO))
      }
      if (vectors.length !== batch.length)
        throw new GatewayError(
          502,
          `embedding model ${model} returned ${vectors.length} vectors for ${batch.length} inputs`,
        )
      out.push(...vectors)
    }
    return out
  }

  async close(): Promise<void> {
    await this.readers.close()
    await this.store.close()
  }
}

/** The normalised mean of unit vectors: the direction they share (a chunk's vector from its windows'). */
export function meanDirection(vectors: readonly Float32Array[]): Float32Array {
  const mean = new Float32Array(vectors[0]!.length)
  for (const v of vectors) for (let i = 0; i < v.length; i++) mean[i]! += v[i]!
  let norm = 0
  for (const x of mean) norm += x * x
  norm = Math.sqrt(norm) || 1
  return mean.map((x) => x / norm)
}

/** A document over a reader limit (413, 422) is named in the refusal, so a bulk load says which one. */
async function namedRefusal<T>(sourceName: string, work: Promise<T>): Promise<T> {
  try {
    return await work
  } catch (err) {
    if (err instanceof GatewayError && (err.status === 413 || err.status === 422))
      throw new GatewayError(err.status, `document ${JSON.stringify(sourceName)}: ${err.message}`, {
        code: 'invalid_request',
      })
    throw err
  }
}
