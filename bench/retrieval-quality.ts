/**
 * Retrieval quality on a real corpus: pages of Debian's sqlite3-doc (public domain, see
 * bench/corpus/sqlite-doc/README.md) and questions written for them. Each store gets the same
 * chunks (512/64 tokens) and the same use-lite embeddings; every question then runs through
 * four methods: lexical, vector, hybrid (RRF) and hybrid+rescore. Prints recall@5, MRR@10 and
 * nDCG@10 per method and store, with the ingestion rate and query latency.
 *
 * "hybrid+rescore" is NOT a neural reranker: none with real weights runs offline here. It
 * re-scores the fused top 20 by use-lite cosine against the whole chunk plus a word-overlap
 * term, a cheap stand-in that shows what a second stage over the fused list can do.
 *
 * Windows (`--windows`, default the product's 96; 0 = off): each chunk's window vectors are
 * made by the product's own code (KnowledgeBase.embedChunks) and stored with it, so the vector
 * leg scores a chunk by its best window as a deployment does.
 *
 *   npm run bench -- retrieval-quality [--windows 96] [--fusion rrf|score] [--k 60] [--lexical-weight 2] [--vector-weight 1]
 */
import os from 'node:os'
import { performance } from 'node:perf_hooks'
import { loadUseLite, USE_LITE_DIMENSIONS } from '../kernel/services/embedder/use-lite-model.js'
import { chunkDocument, DEFAULT_CHUNKING } from '../domains/query/knowledge/chunker.js'
import type { Chunk } from '../domains/query/knowledge/model.js'
import {
  DEFAULT_KNOWLEDGE_SETTINGS,
  DEFAULT_VECTOR_WINDOWS,
  KnowledgeBase,
} from '../domains/query/knowledge/knowledge-base.js'
import { embeddingInputs } from '../domains/query/knowledge/windows.js'
import { DEFAULT_FUSION, search, type FusionOptions } from '../domains/query/knowledge/retrieve.js'
import type { ScoredChunk } from '../domains/query/knowledge/store.js'
import {
  pgliteTestKnowledge,
  postgresTestKnowledge,
  sqliteTestKnowledge,
  type TestKnowledge,
} from '../test/support/knowledge-stores.js'
import { option } from './bench-setup.js'
import { cachedEmbed } from './embedding-cache.js'
import { corpusFiles, isRelevant, loadQuestions, readPage, type QualityQuestion } from './quality-corpus.js'
import { mrrAt, ndcgAt, percentile, recallAt } from './quality-metrics.js'

const METHODS = ['lexical', 'vector', 'hybrid', 'hybrid+rescore'] as const
type Method = (typeof METHODS)[number]
const methodArg = process.argv[process.argv.indexOf('--fusion') + 1]
const fusionMethod = process.argv.includes('--fusion') && methodArg === 'score' ? 'score' : 'rrf'
const fusion: FusionOptions = {
  method: fusionMethod,
  k: option('k', DEFAULT_FUSION.k),
  lexicalWeight: option('lexical-weight', DEFAULT_FUSION.lexicalWeight),
  vectorWeight: option('vector-weight', DEFAULT_FUSION.vectorWeight),
}
const windowTokens = option('windows', DEFAULT_VECTOR_WINDOWS.maxTokens)
const PROJECT = 'bench'
const COLLECTION = 'sqlite-doc'
const RESCORE_DEPTH = 20

const STOP = new Set(
  'the a an and or of to in on for is are be do does i my me how what when why which can with it its by as at from this that there into so if not no use using get'.split(
    ' ',
  ),
)
const words = (s: string) =>
  new Set((s.toLowerCase().match(/[a-z0-9_]+/g) ?? []).filter((w) => w.length > 1 && !STOP.has(w)))

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!
  return dot // use-lite returns unit vectors
}

/** The stand-in second stage: cosine on the whole chunk plus half the share of query words it contains. */
function rescore(
  hits: readonly ScoredChunk[],
  question: string,
  qv: Float32Array,
  vectorOf: (c: ScoredChunk) => Float32Array,
): ScoredChunk[] {
  const qw = words(question)
  return hits
    .slice(0, RESCORE_DEPTH)
    .map((c) => {
      const cw = words(c.content)
      const overlap = qw.size ? [...qw].filter((w) => cw.has(w)).length / qw.size : 0
      return { ...c, score: cosine(qv, vectorOf(c)) + 0.5 * overlap }
    })
    .sort((a, b) => b.score - a.score)
}

interface Doc {
  file: string
  chunks: Chunk[]
  vectors: Float32Array[]
  /** Each chunk's window vectors; undefined with --windows 0. */
  windows: Float32Array[][] | undefined
}

async function main(): Promise<void> {
  const questions = loadQuestions()
  const model = await loadUseLite()
  const cache = cachedEmbed(async (texts) => (await model.embed(texts)).map((v) => Float32Array.from(v)))
  const embed = cache.embed

  // Read, chunk and embed once; every store gets the same chunks and vectors.
  const docs: Doc[] = []
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
  const t0 = performance.now()
  for (const file of corpusFiles()) {
    const chunks = chunkDocument(readPage(file), DEFAULT_CHUNKING)
    const embedded = await windowMaker.embedChunks(
      'use-lite',
      chunks.map((c) => embeddingInputs(c.content, windowTokens)),
      embedBatched,
    )
    const vectors = embedded.map((e) => e.embedding)
    const windows = windowTokens > 0 ? embedded.map((e) => e.windows!) : undefined
    docs.push({ file, chunks, vectors, windows })
  }
  const windowCount = docs.reduce((n, d) => n + (d.windows?.reduce((m, w) => m + w.length, 0) ?? 0), 0)
  const embedMs = performance.now() - t0
  const chunkCount = docs.reduce((n, d) => n + d.chunks.length, 0)
  const vectorByKey = new Map(
    docs.flatMap((d) => d.chunks.map((c, i) => [`${d.file}#${c.index}`, d.vectors[i]!] as const)),
  )
  const vectorOf = (c: ScoredChunk) => vectorByKey.get(`${c.sourceName}#${c.index}`)!
  const qvs = await embed(questions.map((q) => q.question))

  console.log(
    `retrieval quality: ${docs.length} pages of sqlite3-doc, ${chunkCount} chunks (${DEFAULT_CHUNKING.maxTokens}/${DEFAULT_CHUNKING.overlapTokens} tokens), ${questions.length} questions`,
  )
  console.log(
    windowTokens > 0
      ? `vector leg: best of ${windowCount} windows of up to ${windowTokens} tokens`
      : 'vector leg: one vector per chunk (windows off)',
  )
  console.log(
    `embedding model use-lite (512 dims, in-process, no worker); fusion ${fusionMethod === 'score' ? 'score (min-max per leg)' : `RRF k=${fusion.k}`}, weights lexical ${fusion.lexicalWeight} / vector ${fusion.vectorWeight}; ${os.cpus()[0]?.model ?? '?'} × ${os.cpus().length}, node ${process.version}`,
  )
  console.log(
    `read + chunk + embed: ${(embedMs / 1000).toFixed(1)} s (${((chunkCount * 1000) / embedMs).toFixed(1)} chunks/s)${cache.hits() ? `; ${cache.hits()} texts from the embedding cache (rates not comparable)` : ''}`,
  )
  console.log(
    `hybrid+rescore = fused top ${RESCORE_DEPTH} re-scored by use-lite cosine + word overlap (no neural reranker available offline)\n`,
  )

  const stores: [string, () => Promise<TestKnowledge | undefined>][] = [
    ['sqlite (FTS5 bm25 + sqlite-vec)', async () => sqliteTestKnowledge()],
    ['postgres 15 (tsvector + exact arrays)', postgresTestKnowledge],
    ['pglite (tsvector + pgvector hnsw)', pgliteTestKnowledge],
  ]
  for (const [label, open] of stores) {
    const kb = await open()
    if (!kb) {
      console.log(`${label}: not reachable, skipped\n`)
      continue
    }
    try {
      await runStore(label, kb, docs, chunkCount, embedMs, questions, qvs, vectorOf)
    } finally {
      await kb.store.close()
      await kb.cleanup()
    }
  }
}

async function runStore(
  label: string,
  kb: TestKnowledge,
  docs: Doc[],
  chunkCount: number,
  embedMs: number,
  questions: QualityQuestion[],
  qvs: Float32Array[],
  vectorOf: (c: ScoredChunk) => Float32Array,
): Promise<void> {
  const { store } = kb
  await store.createCollection(PROJECT, COLLECTION, { dimension: USE_LITE_DIMENSIONS })
  const t0 = performance.now()
  for (const d of docs)
    await store.upsertDocument(
      PROJECT,
      COLLECTION,
      { sourceName: d.file },
      d.chunks.map((c, i) => ({ ...c, embedding: d.vectors[i]!, ...(d.windows ? { windows: d.windows[i]! } : {}) })),
    )
  const writeMs = performance.now() - t0
  // PostgreSQL: the statistics autovacuum would gather within a minute of this bulk load (the
  // lexical leg reads how common each word is from them).
  await kb.sql?.('ANALYZE kb_chunks')

  // The relevant chunk ids of each question, found by quote in what the store returns.
  const all = await store.documentChunks(
    PROJECT,
    COLLECTION,
    (await store.listDocuments(PROJECT, COLLECTION)).map((d) => d.id),
  )
  const relevant = questions.map((q) => new Set(all.filter((c) => isRelevant(q, c)).map((c) => c.id)))
  const orphan = questions.filter((_, i) => relevant[i]!.size === 0)
  if (orphan.length) throw new Error(`questions with no relevant chunk: ${orphan.map((q) => q.id).join(', ')}`)

  const sums = new Map<Method, { recall: number; mrr: number; ndcg: number; ms: number[] }>(
    METHODS.map((m) => [m, { recall: 0, mrr: 0, ndcg: 0, ms: [] }]),
  )
  for (const [i, q] of questions.entries()) {
    const qv = qvs[i]!
    const base = { project: PROJECT, collection: COLLECTION, topK: 10, fusion }
    const runs: Record<Method, () => Promise<ScoredChunk[]>> = {
      lexical: () => search(store, { ...base, query: q.question }),
      vector: () => search(store, { ...base, embedding: qv }),
      hybrid: () => search(store, { ...base, query: q.question, embedding: qv }),
      'hybrid+rescore': async () =>
        rescore(
          await search(store, { ...base, query: q.question, embedding: qv }, RESCORE_DEPTH),
          q.question,
          qv,
          vectorOf,
        ),
    }
    for (const m of METHODS) {
      const t = performance.now()
      const ranked = (await runs[m]()).map((c) => c.id)
      const s = sums.get(m)!
      s.ms.push(performance.now() - t)
      s.recall += recallAt(5, ranked, relevant[i]!)
      s.mrr += mrrAt(10, ranked, relevant[i]!)
      s.ndcg += ndcgAt(10, ranked, relevant[i]!)
    }
  }
  const n = questions.length
  console.log(`${label} — ${kb.log.find((l) => l.includes('vector')) ?? store.vectors}`)
  console.log(
    `  ingestion: ${chunkCount} chunks written in ${(writeMs / 1000).toFixed(2)} s; with embedding ${((chunkCount * 1000) / (embedMs + writeMs)).toFixed(1)} chunks/s`,
  )
  console.log(`  ${'method'.padEnd(16)} recall@5  MRR@10  nDCG@10   p50 ms   p99 ms`)
  for (const m of METHODS) {
    const s = sums.get(m)!
    const f = (x: number) => (x / n).toFixed(3).padStart(8)
    console.log(
      `  ${m.padEnd(16)}${f(s.recall)}${f(s.mrr)}${f(s.ndcg)} ${percentile(s.ms, 50).toFixed(1).padStart(8)} ${percentile(s.ms, 99).toFixed(1).padStart(8)}`,
    )
  }
  console.log()
}

await main()
