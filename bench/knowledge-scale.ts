/**
 * The knowledge base at scale: ingestion rate and query latency per store.
 *
 * 1. Ingestion with embeddings: a real sample of sqlite3-doc (≥ `--sample` chunks, default
 *    1,000) read, chunked (512/64 tokens) and embedded with use-lite in process, then written to
 *    each store: chunks/s end to end (read + chunk + embed + store), and the store's writes/s.
 * 2. Scale: each store filled to each size of `--chunks` (default 10000,100000) with SYNTHETIC
 *    chunks: real texts with real vectors plus seeded noise (bench/scale-corpus.ts), because
 *    embedding 100,000 texts with use-lite would take ~22 minutes here. The fill rate at scale
 *    is therefore store-only (writes/s), not embedding-included.
 * 3. Query latency at each size: `--queries` (default 200) real questions, embedded once, for
 *    lexical, vector, hybrid (RRF) and hybrid filtered to one tag in ten; top 10. A method stops
 *    early after `--query-budget` seconds (default 10) and says how many queries it measured; a
 *    fill whose projected time exceeds `--fill-budget` seconds (default 180) is skipped, saying so.
 *
 *   npm run bench -- knowledge-scale [--chunks 10000,100000] [--stores sqlite,postgres,pglite]
 */
import os from 'node:os'
import { performance } from 'node:perf_hooks'
import { USE_LITE_DIMENSIONS } from '../kernel/services/embedder/use-lite-model.js'
import { tagsFilter } from '../domains/query/knowledge/filter-sql.js'
import { search, type SearchRequest } from '../domains/query/knowledge/retrieve.js'
import type { EmbeddedChunk } from '../domains/query/knowledge/store.js'
import {
  pgliteTestKnowledge,
  postgresTestKnowledge,
  sqliteTestKnowledge,
  type TestKnowledge,
} from '../test/support/knowledge-stores.js'
import { option } from './bench-setup.js'
import { isAnswerable, loadQuestions } from './quality-corpus.js'
import { percentile } from './quality-metrics.js'
import { NOISE, realSample, syntheticDoc, type RealSample } from './scale-corpus.js'

const PROJECT = 'bench'
const DOC_SIZE = 100
const list = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return (i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback).split(',').filter(Boolean)
}
const sizes = list('chunks', '10000,100000')
  .map(Number)
  .sort((a, b) => a - b)
const storeNames = list('stores', 'sqlite,postgres,pglite')
const queryCount = option('queries', 200)
const queryBudgetMs = option('query-budget', 10) * 1000
const fillBudgetMs = option('fill-budget', 180) * 1000

const OPENERS: Record<string, [string, () => Promise<TestKnowledge | undefined>]> = {
  sqlite: ['sqlite (FTS5 + sqlite-vec)', async () => sqliteTestKnowledge()],
  postgres: ['postgres 15 (tsvector + exact real[])', postgresTestKnowledge],
  pglite: ['pglite (tsvector + pgvector hnsw)', pgliteTestKnowledge],
}
const METHODS = ['lexical', 'vector', 'hybrid', 'hybrid+filter'] as const

const fmt = (x: number, d = 1) => x.toFixed(d).padStart(9)

async function main(): Promise<void> {
  for (const s of storeNames)
    if (!OPENERS[s]) throw new Error(`unknown store '${s}' (known: ${Object.keys(OPENERS).join(', ')})`)
  const sample = await realSample(option('sample', 1000))
  const questions = loadQuestions('sqlite-doc').filter(isAnswerable)
  const qvs = await sample.embed(questions.map((q) => q.question))
  const queries = Array.from({ length: queryCount }, (_, i) => ({
    text: questions[i % questions.length]!.question,
    embedding: qvs[i % questions.length]!,
  }))
  const real = sample.docs.flatMap((d) => d.chunks)

  console.log(
    `knowledge at scale: ${new Date().toISOString().slice(0, 10)}, ${os.cpus()[0]?.model ?? '?'} × ${os.cpus().length}, node ${process.version}`,
  )
  console.log(
    `real sample: ${sample.docs.length} pages of sqlite3-doc, ${sample.chunks} chunks, read + chunk + embed (use-lite, 512 dims, batches of 32) ${(sample.prepareMs / 1000).toFixed(1)} s${sample.cachedTexts ? ` (${sample.cachedTexts} from the embedding cache: rates with embedding not comparable)` : ''}`,
  )
  console.log(
    `scale runs: SYNTHETIC chunks (real text + real vector + N(0, ${NOISE}²) noise per dimension, renormalized), ${DOC_SIZE} chunks per document; fill rate = store writes only`,
  )
  console.log(
    `queries: ${queryCount} (the ${questions.length} questions in turn), top 10; hybrid+filter keeps one tag in ten; budget ${queryBudgetMs / 1000} s per method, ${fillBudgetMs / 1000} s per fill\n`,
  )

  for (const name of storeNames) {
    const [label, open] = OPENERS[name]!
    const kb = await open()
    if (!kb) {
      console.log(`${label}: not reachable, skipped\n`)
      continue
    }
    try {
      await runStore(label, kb, sample, real, queries)
    } finally {
      await kb.store.close()
      await kb.cleanup()
    }
  }
}

async function runStore(
  label: string,
  kb: TestKnowledge,
  sample: RealSample,
  real: EmbeddedChunk[],
  queries: { text: string; embedding: Float32Array }[],
): Promise<void> {
  const { store } = kb
  console.log(`${label} — ${kb.log.find((l) => l.includes('vector')) ?? store.vectors}`)
  await store.createCollection(PROJECT, 'sample', { dimension: USE_LITE_DIMENSIONS })
  let t = performance.now()
  for (const d of sample.docs) await store.upsertDocument(PROJECT, 'sample', { sourceName: d.file }, d.chunks)
  const sampleWriteMs = performance.now() - t
  await store.deleteCollection(PROJECT, 'sample')
  let writesPerSec = (sample.chunks * 1000) / sampleWriteMs
  console.log(
    `  ingestion, real sample: ${fmt((sample.chunks * 1000) / (sample.prepareMs + sampleWriteMs))} chunks/s with embedding; store alone ${writesPerSec.toFixed(0)} writes/s`,
  )
  console.log(
    `  ${'chunks'.padStart(7)}  ${'fill w/s'.padStart(9)}  ${'method'.padEnd(14)} ${'n'.padStart(4)} ${'p50 ms'.padStart(9)} ${'p99 ms'.padStart(9)}`,
  )

  await store.createCollection(PROJECT, 'scale', { dimension: USE_LITE_DIMENSIONS })
  let filled = 0
  for (const size of sizes) {
    const projectedMs = ((size - filled) * 1000) / writesPerSec
    if (projectedMs > fillBudgetMs) {
      console.log(
        `  ${String(size).padStart(7)}  skipped: filling ${size - filled} more chunks at ${writesPerSec.toFixed(0)} writes/s would take ~${(projectedMs / 1000).toFixed(0)} s (budget ${fillBudgetMs / 1000} s)`,
      )
      break
    }
    t = performance.now()
    for (let d = filled / DOC_SIZE; d < size / DOC_SIZE; d++) {
      const doc = syntheticDoc(real, d, DOC_SIZE)
      await store.upsertDocument(PROJECT, 'scale', { sourceName: doc.sourceName, tags: doc.tags }, doc.chunks)
    }
    writesPerSec = ((size - filled) * 1000) / (performance.now() - t)
    filled = size
    // PostgreSQL: the statistics autovacuum would gather soon after this bulk load (the lexical
    // leg reads how common each word is from them); not counted in the fill rate.
    await kb.sql?.('ANALYZE kb_chunks')
    for (const m of METHODS) {
      const { ms, stopped } = await timeQueries(store, m, queries)
      const note = stopped ? `  (stopped at the ${queryBudgetMs / 1000} s budget)` : ''
      console.log(
        `  ${String(size).padStart(7)}  ${writesPerSec.toFixed(0).padStart(9)}  ${m.padEnd(14)} ${String(ms.length).padStart(4)} ${fmt(percentile(ms, 50))} ${fmt(percentile(ms, 99))}${note}`,
      )
    }
  }
  console.log()
}

async function timeQueries(
  store: TestKnowledge['store'],
  method: (typeof METHODS)[number],
  queries: { text: string; embedding: Float32Array }[],
): Promise<{ ms: number[]; stopped: boolean }> {
  const base = { project: PROJECT, collection: 'scale', topK: 10 }
  const request = (q: { text: string; embedding: Float32Array }): SearchRequest =>
    method === 'lexical'
      ? { ...base, query: q.text }
      : method === 'vector'
        ? { ...base, embedding: q.embedding }
        : method === 'hybrid'
          ? { ...base, query: q.text, embedding: q.embedding }
          : { ...base, query: q.text, embedding: q.embedding, filter: tagsFilter(['shard-3']) }
  for (const q of queries.slice(0, 3)) await search(store, request(q)) // warm-up, not counted
  const ms: number[] = []
  const start = performance.now()
  for (const q of queries) {
    const t = performance.now()
    const hits = await search(store, request(q))
    ms.push(performance.now() - t)
    if (method !== 'lexical' && hits.length === 0) throw new Error(`${method} returned nothing`)
    if (performance.now() - start > queryBudgetMs) return { ms, stopped: ms.length < queries.length }
  }
  return { ms, stopped: false }
}

await main()
