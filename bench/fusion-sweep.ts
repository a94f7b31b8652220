/**
 * Fusion settings compared on the retrieval-quality corpus (sqlite3-doc, the tuning set): each
 * store is loaded once, each question's two legs are fetched once (top 40 each, as a top-10
 * hybrid search fetches them), and every setting fuses the same lists with the product's own
 * fuseLegs. Prints nDCG@10 (and recall@5, MRR@10) per setting and store, so that RRF and convex
 * fusion, their weights and the agreement scaling are chosen on the same data. A few settings
 * run again with a vector leg that has nothing to add (each question fused with the next
 * question's vector hits): what fusion does to a corpus the encoder does not understand.
 *
 *   npm run bench -- fusion-sweep [--windows 96] [--corpus sqlite-doc|python-doc]
 *
 * The default corpus is the tuning set; python-doc is held out (run it to check, never to choose).
 *
 * Set SLUICE_BENCH_EMBEDDINGS to a folder to reuse the corpus's vectors between runs.
 */
import { loadUseLite, USE_LITE_DIMENSIONS } from '../kernel/services/embedder/use-lite-model.js'
import { DEFAULT_VECTOR_WINDOWS } from '../domains/query/knowledge/knowledge-base.js'
import { fuseLegs, resolveFusion, type FusionOptions } from '../domains/query/knowledge/fusion.js'
import type { ScoredChunk } from '../domains/query/knowledge/store.js'
import {
  pgliteTestKnowledge,
  postgresTestKnowledge,
  sqliteTestKnowledge,
  type TestKnowledge,
} from '../test/support/knowledge-stores.js'
import { option } from './bench-setup.js'
import { cachedEmbed } from './embedding-cache.js'
import { embedCorpus } from './corpus-embedding.js'
import { CORPORA, isAnswerable, isRelevant, loadQuestions, type CorpusName } from './quality-corpus.js'
import { mrrAt, ndcgAt, recallAt } from './quality-metrics.js'

const TOP_K = 10
const windowTokens = option('windows', DEFAULT_VECTOR_WINDOWS.maxTokens)

const settings: [string, FusionOptions | 'lexical' | 'vector'][] = [
  ['lexical', 'lexical'],
  ['vector', 'vector'],
]
for (const adaptive of [false, true]) {
  const a = adaptive ? ' adaptive' : ''
  for (const [l, v] of [
    [1, 1],
    [2, 1],
    [3, 1],
  ] as const)
    settings.push([`rrf k60 ${l}/${v}${a}`, { method: 'rrf', k: 60, lexicalWeight: l, vectorWeight: v, adaptive }])
  for (const l of [0.5, 0.6, 0.7, 0.8, 0.9])
    settings.push([
      `convex ${l}/${(1 - l).toFixed(1)}${a}`,
      { method: 'convex', lexicalWeight: l, vectorWeight: 1 - l, adaptive },
    ])
}

/** The settings also run with a vector leg that has nothing to add. */
const NOTHING = ['lexical', 'rrf k60 2/1', 'rrf k60 2/1 adaptive', 'convex 0.7/0.3', 'convex 0.7/0.3 adaptive']

async function main(): Promise<void> {
  const corpusArg = process.argv[process.argv.indexOf('--corpus') + 1]
  const corpus: CorpusName =
    process.argv.includes('--corpus') && CORPORA.includes(corpusArg as CorpusName)
      ? (corpusArg as CorpusName)
      : 'sqlite-doc'
  const questions = loadQuestions(corpus).filter(isAnswerable)
  const model = await loadUseLite()
  const { embed } = cachedEmbed(async (texts) => (await model.embed(texts)).map((v) => Float32Array.from(v)))
  const docs = await embedCorpus(corpus, windowTokens, embed)
  const qvs = await embed(questions.map((q) => q.question))
  console.log(`fusion sweep: ${docs.length} pages of ${corpus}, ${questions.length} questions, top ${TOP_K}`)

  const stores: [string, () => Promise<TestKnowledge | undefined>][] = [
    ['sqlite', async () => sqliteTestKnowledge()],
    ['postgres', postgresTestKnowledge],
    ['pglite', pgliteTestKnowledge],
  ]
  const table = new Map<string, Map<string, string>>()
  for (const [label, open] of stores) {
    const kb = await open()
    if (!kb) {
      console.log(`${label}: not reachable, skipped`)
      continue
    }
    try {
      const { store } = kb
      await store.createCollection('bench', 'sweep', { dimension: USE_LITE_DIMENSIONS })
      for (const d of docs)
        await store.upsertDocument(
          'bench',
          'sweep',
          { sourceName: d.file },
          d.chunks.map((c, i) => ({
            ...c,
            embedding: d.vectors[i]!,
            ...(d.windows ? { windows: d.windows[i]! } : {}),
          })),
        )
      await kb.sql?.('ANALYZE kb_chunks')
      const all = await store.documentChunks(
        'bench',
        'sweep',
        (await store.listDocuments('bench', 'sweep')).map((d) => d.id),
      )
      const legs: { lexical: ScoredChunk[]; vector: ScoredChunk[]; relevant: Set<number> }[] = []
      for (const [i, q] of questions.entries()) {
        legs.push({
          lexical: await store.lexical('bench', 'sweep', q.question, TOP_K * 4),
          vector: await store.vector('bench', 'sweep', qvs[i]!, TOP_K * 4),
          relevant: new Set(all.filter((c) => isRelevant(q, c)).map((c) => c.id)),
        })
      }
      // A vector leg with nothing to add: each question gets the next question's vector hits.
      const shuffled = legs.map((l, i) => ({ ...l, vector: legs[(i + 1) % legs.length]!.vector }))
      for (const [name, s, nothing] of [
        ...settings.map(([n, x]) => [n, x, false] as const),
        ...settings
          .filter(([n]) => NOTHING.includes(n))
          .map(([n, x]) => [`${n} | vector adds nothing`, x, true] as const),
      ]) {
        let recall = 0
        let mrr = 0
        let ndcg = 0
        for (const l of nothing ? shuffled : legs) {
          const list =
            s === 'lexical' ? l.lexical : s === 'vector' ? l.vector : fuseLegs(l.lexical, l.vector, resolveFusion(s))
          const ids = list.slice(0, TOP_K).map((c) => c.id)
          recall += recallAt(5, ids, l.relevant)
          mrr += mrrAt(10, ids, l.relevant)
          ndcg += ndcgAt(10, ids, l.relevant)
        }
        const n = legs.length
        const row = table.get(name) ?? new Map<string, string>()
        row.set(label, `${(recall / n).toFixed(3)} ${(mrr / n).toFixed(3)} ${(ndcg / n).toFixed(3)}`)
        table.set(name, row)
      }
    } finally {
      await kb.store.close()
      await kb.cleanup()
    }
  }
  const labels = stores.map(([l]) => l)
  console.log(`\n${'setting'.padEnd(46)}${labels.map((l) => `${l} (R@5 MRR nDCG)`.padEnd(26)).join('')}`)
  for (const name of [...settings.map(([n]) => n), ...NOTHING.map((n) => `${n} | vector adds nothing`)])
    console.log(`${name.padEnd(46)}${labels.map((l) => (table.get(name)?.get(l) ?? '-').padEnd(26)).join('')}`)
}

await main()
