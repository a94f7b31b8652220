/**
 * A retrieval corpus chunked and embedded as ingestion does it (the shipped chunking, `use-lite`
 * windows of `windowTokens`, 32 texts a pass), for the benches that search it in every store
 * (retrieval-quality.ts, fusion-sweep.ts) without loading it through a gateway.
 */
import { chunkDocument, DEFAULT_CHUNKING } from '../domains/query/knowledge/chunker.js'
import { DEFAULT_KNOWLEDGE_SETTINGS, KnowledgeBase } from '../domains/query/knowledge/knowledge-base.js'
import type { Chunk } from '../domains/query/knowledge/model.js'
import { embeddingInputs } from '../domains/query/knowledge/windows.js'
import type { Embed } from './embedding-cache.js'
import { type CorpusName, corpusFiles, readPage } from './quality-corpus.js'

export interface EmbeddedPage {
  file: string
  chunks: Chunk[]
  vectors: Float32Array[]
  /** Each chunk's window vectors; undefined with windows off (0). */
  windows: Float32Array[][] | undefined
}

export async function embedCorpus(corpus: CorpusName, windowTokens: number, embed: Embed): Promise<EmbeddedPage[]> {
  // Only embedChunks is used: it needs no store, just the settings and an embed function.
  const windowMaker = new KnowledgeBase(undefined as never, {
    ...DEFAULT_KNOWLEDGE_SETTINGS,
    vectorWindows: { maxTokens: windowTokens },
  })
  const embedBatched = async (_model: string, texts: readonly string[]) => {
    const out: Float32Array[] = []
    for (let i = 0; i < texts.length; i += 32) out.push(...(await embed(texts.slice(i, i + 32))))
    return out
  }
  const pages: EmbeddedPage[] = []
  for (const file of corpusFiles(corpus)) {
    const chunks = chunkDocument(readPage(corpus, file), DEFAULT_CHUNKING)
    const embedded = await windowMaker.embedChunks(
      'use-lite',
      chunks.map((c) => embeddingInputs(c.content, windowTokens)),
      embedBatched,
    )
    const vectors = embedded.map((e) => e.embedding)
    const windows = windowTokens > 0 ? embedded.map((e) => e.windows!) : undefined
    pages.push({ file, chunks, vectors, windows })
  }
  return pages
}
