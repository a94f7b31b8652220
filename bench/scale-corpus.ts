/**
 * The knowledge-scale bench's material: a real sample (pages of sqlite3-doc read, chunked and
 * embedded with use-lite) and, for the large stores, synthetic chunks derived from it.
 *
 * Synthetic chunk j reuses the text of real chunk j mod n and a vector near its real one: the
 * real unit vector plus Gaussian noise of standard deviation `NOISE` per dimension (seeded
 * xorshift + Box–Muller, so every run writes the same vectors), renormalized to unit length.
 * With 512 dimensions the noise has norm ≈ 0.45, so a copy keeps a cosine of ≈ 0.9 with its
 * source: the stores see clusters of near neighbours, not uniform random points, and the
 * query vectors (real questions) land among them as they would in a real collection.
 */
import { performance } from 'node:perf_hooks'
import { loadUseLite } from '../kernel/services/embedder/use-lite-model.js'
import { chunkDocument, DEFAULT_CHUNKING } from '../domains/query/knowledge/chunker.js'
import type { EmbeddedChunk } from '../domains/query/knowledge/store.js'
import { cachedEmbed } from './embedding-cache.js'
import { corpusFiles, readPage } from './quality-corpus.js'

export const NOISE = 0.02

export interface RealDoc {
  readonly file: string
  readonly chunks: EmbeddedChunk[]
}

export interface RealSample {
  readonly docs: RealDoc[]
  readonly chunks: number
  /** Wall time of read + chunk + embed (batches of 32), for all the sample. */
  readonly prepareMs: number
  /** Texts of the sample served by the bench's embedding cache (then prepareMs is not an embedding time). */
  readonly cachedTexts: number
  /** Embeds texts with the same model (for the questions). */
  embed(texts: string[]): Promise<Float32Array[]>
}

/** Reads, chunks and embeds the corpus pages until at least `atLeast` chunks (or all pages). */
export async function realSample(atLeast: number): Promise<RealSample> {
  const model = await loadUseLite()
  const cache = cachedEmbed(async (texts) => (await model.embed(texts)).map((v) => Float32Array.from(v)))
  const embed = cache.embed
  const docs: RealDoc[] = []
  let chunks = 0
  const t0 = performance.now()
  for (const file of corpusFiles('sqlite-doc')) {
    if (chunks >= atLeast) break
    const cs = chunkDocument(readPage('sqlite-doc', file), DEFAULT_CHUNKING)
    const out: EmbeddedChunk[] = []
    for (let i = 0; i < cs.length; i += 32) {
      const batch = cs.slice(i, i + 32)
      const vs = await embed(batch.map((c) => c.content))
      batch.forEach((c, k) => out.push({ ...c, embedding: vs[k]! }))
    }
    docs.push({ file, chunks: out })
    chunks += out.length
  }
  return { docs, chunks, prepareMs: performance.now() - t0, cachedTexts: cache.hits(), embed }
}

/** A seeded source of standard normal numbers (xorshift32 + Box–Muller). */
function normals(seed: number): () => number {
  let s = seed >>> 0 || 1
  const uniform = () => {
    s ^= s << 13
    s >>>= 0
    s ^= s >>> 17
    s ^= s << 5
    s >>>= 0
    return (s + 0.5) / 4294967296
  }
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform())
}

/** `base` plus seeded noise, renormalized. */
export function perturb(base: Float32Array, seed: number): Float32Array {
  const next = normals(seed)
  const v = new Float32Array(base.length)
  let norm = 0
  for (let i = 0; i < base.length; i++) {
    v[i] = base[i]! + NOISE * next()
    norm += v[i]! * v[i]!
  }
  norm = Math.sqrt(norm)
  for (let i = 0; i < v.length; i++) v[i] = v[i]! / norm
  return v
}

export const SHARDS = 10

/**
 * Synthetic document `d` (chunks [d·size, (d+1)·size)): texts and perturbed vectors of the real
 * chunks in turn, tagged `shard-<d mod 10>` so that a filtered query keeps a tenth.
 */
export function syntheticDoc(
  real: readonly EmbeddedChunk[],
  d: number,
  size: number,
): { sourceName: string; tags: string[]; chunks: EmbeddedChunk[] } {
  const chunks: EmbeddedChunk[] = []
  for (let i = 0; i < size; i++) {
    const j = d * size + i
    const src = real[j % real.length]!
    chunks.push({
      index: i,
      content: src.content,
      headingPath: src.headingPath,
      tokens: src.tokens,
      embedding: perturb(src.embedding, j + 1),
    })
  }
  return { sourceName: `synthetic-${String(d).padStart(5, '0')}`, tags: [`shard-${d % SHARDS}`], chunks }
}
