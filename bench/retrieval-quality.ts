/**
 * Retrieval quality on two real corpora (README.md in each folder of bench/corpus/): sqlite-doc, pages of
 * Debian's sqlite3-doc (public domain), the set the defaults were tuned on; and python-doc,
 * pages of Debian's python3.11-doc (PSF licence), held out: nobody tunes on it. Each store gets
 * the same chunks (512/64 tokens) and the same use-lite embeddings; every answerable question
 * then runs through each leg (lexical, vector), each fusion (rrf, convex, and the product's
 * default as shipped), and hybrid+rescore; plus a plain `bm25` baseline over fixed 300-word
 * windows (bm25-baseline.ts). Prints recall@5, MRR@10 and nDCG@10, one table per corpus.
 *
 * Restricted mode's guard (plugins/query/relevance.ts): each question's coverage signal is read
 * from the top 5 passages of the default retrieval (the Query service's default top_k); the
 * bench prints what the shipped threshold refuses (unanswerable / answerable, per set) and a
 * cross-calibration: the threshold fitted on one set (calibrate(): ≤ 2% answerable refused),
 * applied to the other.
 *
 * "hybrid+rescore" is NOT a neural reranker: none with real weights runs offline here. It
 * re-scores the fused top 20 by use-lite cosine against the whole chunk plus a word-overlap
 * term, a cheap stand-in that shows what a second stage over the fused list can do.
 *
 * Windows (`--windows`, default the product's 96; 0 = off): each chunk's window vectors are
 * made by the product's own code (KnowledgeBase.embedChunks) and stored with it, so the vector
 * leg scores a chunk by its best window as a deployment does.
 *
 *   npm run bench -- retrieval-quality [--corpus sqlite-doc|python-doc] [--store sqlite|postgres|pglite]
 *     [--windows 96] [--k 60] [--lexical-weight 2] [--vector-weight 1]
 */
import fs from 'node:fs'
import os from 'node:os'
import { performance } from 'node:perf_hooks'
import { loadUseLite, USE_LITE_DIMENSIONS } from '../kernel/services/embedder/use-lite-model.js'
import { DEFAULT_CHUNKING } from '../domains/query/knowledge/chunker.js'
import { DEFAULT_VECTOR_WINDOWS } from '../domains/query/knowledge/knowledge-base.js'
import { DEFAULT_FUSION, search, type FusionOptions } from '../domains/query/knowledge/retrieve.js'
import type { ScoredChunk } from '../domains/query/knowledge/store.js'
import { DEFAULT_GUARD, judgeRelevance } from '../plugins/query/relevance.js'
import {
  pgliteTestKnowledge,
  postgresTestKnowledge,
  sqliteTestKnowledge,
  type TestKnowledge,
} from '../test/support/knowledge-stores.js'
import { option } from './bench-setup.js'
import { bm25Baseline, BM25_WINDOW_WORDS } from './bm25-baseline.js'
import { embedCorpus, type EmbeddedPage } from './corpus-embedding.js'
import { cachedEmbed, type Embed } from './embedding-cache.js'
import {
  CORPORA,
  collapse,
  corpusFiles,
  isAnswerable,
  isRelevant,
  loadQuestions,
  readPage,
  type CorpusName,
  type QualityQuestion,
} from './quality-corpus.js'
import { calibrate, mrrAt, ndcgAt, percentile, recallAt, refusals, type GuardPoint } from './quality-metrics.js'

const METHODS = ['lexical', 'vector', 'rrf', 'convex', 'default', 'hybrid+rescore'] as const
type Method = (typeof METHODS)[number]
const arg = (name: string): string | undefined =>
  process.argv.includes(`--${name}`) ? process.argv[process.argv.indexOf(`--${name}`) + 1] : undefined
const weights = {
  lexicalWeight: option('lexical-weight', DEFAULT_FUSION.lexicalWeight),
  vectorWeight: option('vector-weight', DEFAULT_FUSION.vectorWeight),
  // The rrf and convex rows are fixed-weight fusions (`--adaptive 1`: scaled by agreement, as the default is).
  adaptive: option('adaptive', 0) !== 0,
}
const FUSIONS: Record<'rrf' | 'convex', FusionOptions> = {
  rrf: { method: 'rrf', k: option('k', DEFAULT_FUSION.k), ...weights },
  convex: { method: 'convex', ...weights },
}
const windowTokens = option('windows', DEFAULT_VECTOR_WINDOWS.maxTokens)
const corpora: readonly CorpusName[] = CORPORA.filter((c) => (arg('corpus') ?? c) === c)
const PROJECT = 'bench'
/** `--guard-dump <file>`: each question's guard signals as JSON, for calibration by hand. */
const dumpFile = arg('guard-dump')
const dump: object[] | undefined = dumpFile ? [] : undefined
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

/** A corpus read, chunked and embedded once: every store gets the same chunks and vectors. */
interface Prepared {
  corpus: CorpusName
  docs: EmbeddedPage[]
  chunkCount: number
  embedMs: number
  questions: QualityQuestion[]
  qvs: Float32Array[]
  vectorOf: (c: ScoredChunk) => Float32Array
}

interface Row {
  label: string
  recall: number
  mrr: number
  ndcg: number
  ms: number[]
}

const STORES: [string, string, () => Promise<TestKnowledge | undefined>][] = [
  ['sqlite', 'SQLite (FTS5 bm25 + sqlite-vec)', async () => sqliteTestKnowledge()],
  ['postgres', 'PostgreSQL 15 (tsvector + exact arrays)', postgresTestKnowledge],
  ['pglite', 'PGlite (tsvector + pgvector hnsw)', pgliteTestKnowledge],
]

async function main(): Promise<void> {
  const model = await loadUseLite()
  const cache = cachedEmbed(async (texts) => (await model.embed(texts)).map((v) => Float32Array.from(v)))
  console.log(
    `embedding model use-lite (512 dims, in-process, no worker); fusion rrf k=${FUSIONS.rrf.k} and convex (min-max per leg), weights lexical ${weights.lexicalWeight} / vector ${weights.vectorWeight}${weights.adaptive ? ' × agreement' : ', fixed'}; "default" = the product's fusion as shipped (${DEFAULT_FUSION.method}, ${DEFAULT_FUSION.lexicalWeight}/${DEFAULT_FUSION.vectorWeight}${DEFAULT_FUSION.adaptive ? ', vector × agreement' : ''}); ${os.cpus()[0]?.model ?? '?'} × ${os.cpus().length}, node ${process.version}`,
  )
  console.log(
    windowTokens > 0
      ? `vector leg: best window of up to ${windowTokens} tokens`
      : 'vector leg: one vector per chunk (windows off)',
  )
  console.log(
    `hybrid+rescore = default fused top ${RESCORE_DEPTH} re-scored by use-lite cosine + word overlap (no neural reranker offline); bm25 = ${BM25_WINDOW_WORDS}-word windows, FTS5 porter, question words OR-ed\n`,
  )
  const guard = new Map<string, Map<CorpusName, GuardPoint[]>>()
  for (const corpus of corpora) {
    const p = await prepare(corpus, cache.embed)
    const answerable = p.questions.filter(isAnswerable)
    console.log(
      `== ${corpus}${corpus === 'python-doc' ? ' (held out)' : ' (tuning set)'}: ${p.docs.length} pages, ${p.chunkCount} chunks (${DEFAULT_CHUNKING.maxTokens}/${DEFAULT_CHUNKING.overlapTokens} tokens), ${answerable.length} answerable + ${p.questions.length - answerable.length} unanswerable questions`,
    )
    console.log(
      `read + chunk + embed: ${(p.embedMs / 1000).toFixed(1)} s (${((p.chunkCount * 1000) / p.embedMs).toFixed(1)} chunks/s)${cache.hits() ? `; ${cache.hits()} texts from the embedding cache so far (rates not comparable)` : ''}`,
    )
    const rows: Row[] = [baseline(p)]
    for (const [name, label, open] of STORES) {
      if ((arg('store') ?? name) !== name) continue
      const kb = await open()
      if (!kb) {
        console.log(`${label}: not reachable, skipped`)
        continue
      }
      try {
        const r = await runStore(label, kb, p)
        rows.push(...r.rows)
        const byCorpus = guard.get(label) ?? new Map<CorpusName, GuardPoint[]>()
        byCorpus.set(corpus, r.guard)
        guard.set(label, byCorpus)
      } finally {
        await kb.store.close()
        await kb.cleanup()
      }
    }
    printTable(rows, answerable.length)
  }
  printGuard(guard)
  if (dumpFile && dump) fs.writeFileSync(dumpFile, JSON.stringify(dump))
}

async function prepare(corpus: CorpusName, embed: Embed): Promise<Prepared> {
  const questions = loadQuestions(corpus)
  const t0 = performance.now()
  const docs = await embedCorpus(corpus, windowTokens, embed)
  const embedMs = performance.now() - t0
  const vectorByKey = new Map(
    docs.flatMap((d) => d.chunks.map((c, i) => [`${d.file}#${c.index}`, d.vectors[i]!] as const)),
  )
  return {
    corpus,
    docs,
    chunkCount: docs.reduce((n, d) => n + d.chunks.length, 0),
    embedMs,
    questions,
    qvs: await embed(questions.map((q) => q.question)),
    vectorOf: (c) => vectorByKey.get(`${c.sourceName}#${c.index}`)!,
  }
}

/** The plain bm25 baseline over fixed windows of the same pages' text. */
function baseline(p: Prepared): Row {
  const pages = corpusFiles(p.corpus).map((file) => ({
    file,
    text: collapse(
      readPage(p.corpus, file)
        .map((b) => b.text)
        .join('\n\n'),
    ),
  }))
  const index = bm25Baseline(pages)
  const row: Row = { label: `bm25 baseline (${index.chunks.length} windows)`, recall: 0, mrr: 0, ndcg: 0, ms: [] }
  try {
    for (const q of p.questions.filter(isAnswerable)) {
      const relevant = new Set(index.chunks.filter((c) => isRelevant(q, c)).map((c) => c.id))
      const t = performance.now()
      const ranked = index.search(q.question, 10)
      row.ms.push(performance.now() - t)
      row.recall += recallAt(5, ranked, relevant)
      row.mrr += mrrAt(10, ranked, relevant)
      row.ndcg += ndcgAt(10, ranked, relevant)
    }
  } finally {
    index.close()
  }
  return row
}

async function runStore(label: string, kb: TestKnowledge, p: Prepared): Promise<{ rows: Row[]; guard: GuardPoint[] }> {
  const { store } = kb
  const collection = p.corpus
  await store.createCollection(PROJECT, collection, { dimension: USE_LITE_DIMENSIONS })
  const t0 = performance.now()
  for (const d of p.docs)
    await store.upsertDocument(
      PROJECT,
      collection,
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
    collection,
    (await store.listDocuments(PROJECT, collection)).map((d) => d.id),
  )
  const answerable = p.questions.filter(isAnswerable)
  const relevant = new Map(answerable.map((q) => [q.id, new Set(all.filter((c) => isRelevant(q, c)).map((c) => c.id))]))
  const orphan = answerable.filter((q) => relevant.get(q.id)!.size === 0)
  if (orphan.length) throw new Error(`questions with no relevant chunk: ${orphan.map((q) => q.id).join(', ')}`)
  console.log(
    `${label} — ${kb.log.find((l) => l.includes('vector')) ?? store.vectors}; ${p.chunkCount} chunks written in ${(writeMs / 1000).toFixed(2)} s`,
  )

  const rows = new Map<Method, Row>(
    METHODS.map((m) => [m, { label: `${label.split(' ')[0]} ${m}`, recall: 0, mrr: 0, ndcg: 0, ms: [] }]),
  )
  const guard: GuardPoint[] = []
  for (const [i, q] of p.questions.entries()) {
    const qv = p.qvs[i]!
    const base = { project: PROJECT, collection, topK: 10 }
    const hybrid = { ...base, query: q.question, embedding: qv }
    // The guard reads what the Query service would get by default: the default retrieval's top 5.
    const top = await search(store, { ...hybrid, topK: DEFAULT_GUARD.passages })
    const verdict = await judgeRelevance(
      q.question,
      top.map((c) => ({ text: c.content })),
      { ...DEFAULT_GUARD, minCoverage: 0 },
      async (word) => (await store.lexical(PROJECT, collection, word, 1)).length > 0,
    )
    guard.push({
      coverage: verdict.coverage,
      nameMissing: verdict.missingName !== undefined,
      answerable: isAnswerable(q),
    })
    dump?.push({
      corpus: p.corpus,
      store: label.split(' ')[0],
      id: q.id,
      question: q.question,
      ...guard.at(-1),
      missingName: verdict.missingName,
      top: top.map((c) => c.content),
    })
    if (!isAnswerable(q)) continue
    const runs: Record<Method, () => Promise<ScoredChunk[]>> = {
      lexical: () => search(store, { ...base, query: q.question }),
      vector: () => search(store, { ...base, embedding: qv }),
      rrf: () => search(store, { ...hybrid, fusion: FUSIONS.rrf }),
      convex: () => search(store, { ...hybrid, fusion: FUSIONS.convex }),
      default: () => search(store, hybrid),
      'hybrid+rescore': async () => rescore(await search(store, hybrid, RESCORE_DEPTH), q.question, qv, p.vectorOf),
    }
    for (const m of METHODS) {
      const t = performance.now()
      const ranked = (await runs[m]()).map((c) => c.id)
      const row = rows.get(m)!
      row.ms.push(performance.now() - t)
      const rel = relevant.get(q.id)!
      row.recall += recallAt(5, ranked, rel)
      row.mrr += mrrAt(10, ranked, rel)
      row.ndcg += ndcgAt(10, ranked, rel)
    }
  }
  return { rows: [...rows.values()], guard }
}

function printTable(rows: readonly Row[], n: number): void {
  console.log(`\n  ${'store and method'.padEnd(34)} recall@5  MRR@10  nDCG@10   p50 ms   p99 ms`)
  for (const r of rows) {
    const f = (x: number) => (x / n).toFixed(3).padStart(8)
    console.log(
      `  ${r.label.padEnd(34)}${f(r.recall)}${f(r.mrr)}${f(r.ndcg)} ${percentile(r.ms, 50).toFixed(1).padStart(8)} ${percentile(r.ms, 99).toFixed(1).padStart(8)}`,
    )
  }
  console.log()
}

/**
 * The guard's figures: the shipped setting on each set, then each set's calibration applied to
 * the other, with the name check (the default) and without it (coverage alone).
 */
function printGuard(guard: Map<string, Map<CorpusName, GuardPoint[]>>): void {
  console.log(
    `restricted guard: coverage of the question's content words in the default retrieval's top ${DEFAULT_GUARD.passages}, and names missing from them and from the collection; refused = below the threshold, no word shared, or (names on) a missing name`,
  )
  console.log(
    `  ${'store'.padEnd(10)} ${'names'.padEnd(6)} ${'min_coverage'.padEnd(28)} ${'set'.padEnd(12)} refused unanswerable  refused answerable`,
  )
  for (const [label, byCorpus] of guard) {
    const store = label.split(' ')[0]!
    const line = (names: boolean, how: string, t: number, corpus: CorpusName) => {
      const r = refusals(byCorpus.get(corpus)!, t, names)
      console.log(
        `  ${store.padEnd(10)} ${(names ? 'on' : 'off').padEnd(6)} ${`${how} ${t.toFixed(2)}`.padEnd(28)} ${corpus.padEnd(12)} ${r.unanswerable.padStart(20)}  ${r.answerable.padStart(18)}`,
      )
    }
    for (const corpus of byCorpus.keys()) line(DEFAULT_GUARD.names, 'shipped', DEFAULT_GUARD.minCoverage, corpus)
    for (const names of [true, false])
      for (const fitted of byCorpus.keys()) {
        const t = calibrate(byCorpus.get(fitted)!, names)
        for (const corpus of byCorpus.keys()) line(names, `fitted on ${fitted}`, t, corpus)
      }
  }
}

await main()
