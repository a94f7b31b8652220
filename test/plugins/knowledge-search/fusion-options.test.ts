/**
 * knowledge-search's `legs` and `fusion`: chosen per request, per collection and per
 * deployment (server.yaml `knowledge.retrieval`), each field from the most specific layer that
 * sets it; bad values a 400 in the gateway's error shape; and advanced_rag keeping the original
 * query's hits in their places while its variants add theirs.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Usage } from '../../../kernel/contract/usage.js'
import knowledgeSearch from '../../../plugins/knowledge-search/index.js'
import type { Kernel } from '../../../kernel/contract/kernel.js'
import { reply } from '../../../kernel/contract/reply.js'
import { makeKernel, runPlugin } from '../../../bin/testing/harness.js'
import { DEFAULT_KNOWLEDGE_SETTINGS, KnowledgeBase } from '../../../domains/query/knowledge/knowledge-base.js'
import { openSqliteKnowledge } from '../../../domains/query/knowledge/sqlite-knowledge.js'
import { openSqliteFile } from '../../../kernel/services/stores/sqlite-file.js'
import type { RetrievalSettingsConfig } from '../../../schemas/retrieval.schema.js'
import { bagOfWords, fakeEmbeddings } from '../../support/fake-embeddings.js'

const test = suite('plugin knowledge-search fusion')
const admin = { admin: { authenticated: true as const } }
const dirs: string[] = []
let variants = ''

const chunk = (index: number, content: string) => ({
  index,
  content,
  headingPath: [],
  tokens: 5,
  embedding: Float32Array.from(bagOfWords(content)),
})

async function kernelWith(retrieval?: RetrievalSettingsConfig): Promise<Kernel> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-fusion-'))
  dirs.push(dir)
  const fake = fakeEmbeddings()
  const knowledge = new KnowledgeBase(openSqliteKnowledge(openSqliteFile(dir, 'knowledge.db')), {
    ...DEFAULT_KNOWLEDGE_SETTINGS,
    retrieval,
  })
  const kernel = makeKernel({
    services: { knowledge },
    call: async (id, body, options) => {
      if (id === 'embeddings') return fake.call(id, body, options)
      return {
        reply: reply.json({ choices: [{ message: { role: 'assistant', content: variants } }] }),
        headers: new Map(),
        usage: new Usage(undefined),
      }
    },
  })
  for (const name of ['docs', 'other']) {
    await knowledge.store.createCollection('p', name, { dimension: 32 })
    await knowledge.store.upsertDocument('p', name, { sourceName: 'boats' }, [
      chunk(0, 'rowing boats need oars and rowing needs arms'),
      chunk(1, 'sailing boats need wind'),
      chunk(2, 'rowing clubs meet at dawn'),
      chunk(3, 'motor boats need fuel'),
      chunk(4, 'a harbour shelters boats from storms'),
      chunk(5, 'canoes are paddled not rowed'),
    ])
  }
  return kernel
}
test.after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true })
})

const search = (kernel: Kernel, body: object, collection = 'docs') =>
  runPlugin(knowledgeSearch, {}, { kernel, state: admin, params: { project: 'p', collection }, body })
type Body = { legs: string; fusion?: Record<string, unknown>; data: { content: string }[] }
const bodyOf = (run: Awaited<ReturnType<typeof search>>) => (run.reply as { body: Body }).body

test('bad legs or fusion values: 400 invalid_request naming the field, before any model call', async () => {
  const kernel = await kernelWith()
  for (const [bad, field] of [
    [{ legs: 'both' }, /legs/],
    [{ fusion: { method: 'mean' } }, /method/],
    [{ fusion: { k: 0 } }, /k/],
    [{ fusion: { weights: { lexical: -1 } } }, /lexical/],
    [{ fusion: { weights: {} } }, /weights/],
    [{ fusion: { weights: { lexical: 1, text: 2 } } }, /text|additional/],
    [{ fusion: { adaptive: 'yes' } }, /adaptive/],
    [{ fusion: 'rrf' }, /fusion/],
  ] as const) {
    const run = await search(kernel, { query: 'rowing', ...bad })
    assert.is(run.error?.status, 400, JSON.stringify(bad))
    assert.is(run.error?.code, 'invalid_request')
    assert.match(run.error!.message, field)
  }
  const zero = await search(kernel, { query: 'rowing', fusion: { weights: { lexical: 0, vector: 0 } } })
  assert.is(zero.error?.status, 400)
  assert.match(zero.error!.message, /cannot both be 0/)
})

test('per request: the fusion used is echoed, every field resolved; lexical and vector legs have none', async () => {
  const kernel = await kernelWith()
  const run = await search(kernel, { query: 'rowing boats', fusion: { method: 'rrf', weights: { vector: 0.5 } } })
  assert.is(run.error, undefined, run.error?.message)
  assert.equal(bodyOf(run).fusion, { method: 'rrf', k: 60, weights: { lexical: 2, vector: 0.5 }, adaptive: true })
  const plain = bodyOf(await search(kernel, { query: 'rowing boats' }))
  assert.equal(plain.fusion, { method: 'rrf', k: 60, weights: { lexical: 2, vector: 1 }, adaptive: true })
  const lexical = bodyOf(await search(kernel, { query: 'rowing', legs: 'lexical' }))
  assert.is(lexical.legs, 'lexical')
  assert.is(lexical.fusion, undefined)
})

test('per request: a vector weight of 0 gives the lexical order; a lexical weight of 0 the vector order', async () => {
  const kernel = await kernelWith()
  const q = { query: 'rowing boats', top_k: 6 }
  const contents = async (extra: object) => bodyOf(await search(kernel, { ...q, ...extra })).data.map((d) => d.content)
  const lexical = await contents({ legs: 'lexical' })
  const vector = await contents({ legs: 'vector' })
  for (const method of ['rrf', 'convex']) {
    const f = (lexicalW: number, vectorW: number) => ({
      fusion: { method, adaptive: false, weights: { lexical: lexicalW, vector: vectorW } },
    })
    // The two rowing chunks (distinct bm25 scores) first, in the lexical leg's order; the vector's best first.
    assert.equal((await contents(f(1, 0))).slice(0, 2), lexical.slice(0, 2), method)
    assert.is((await contents(f(0, 1)))[0], vector[0], method)
  }
})

test('per collection and per deployment: server.yaml settings apply; the request overrides field by field', async () => {
  const kernel = await kernelWith({
    legs: 'hybrid',
    fusion: { method: 'rrf', k: 30 },
    collections: { 'p/docs': { fusion: { weights: { vector: 0 } } }, other: { legs: 'lexical' } },
  })
  assert.equal(bodyOf(await search(kernel, { query: 'rowing' })).fusion, {
    method: 'rrf',
    k: 30,
    weights: { lexical: 2, vector: 0 },
    adaptive: true,
  })
  assert.equal(bodyOf(await search(kernel, { query: 'rowing', fusion: { method: 'convex' } })).fusion, {
    method: 'convex',
    k: 30,
    weights: { lexical: 2, vector: 0 },
    adaptive: true,
  })
  assert.is(bodyOf(await search(kernel, { query: 'rowing' }, 'other')).legs, 'lexical')
  assert.is(bodyOf(await search(kernel, { query: 'rowing', legs: 'vector' }, 'other')).legs, 'vector')
  // Both weights 0 once the layers are merged: refused.
  const zero = await search(kernel, { query: 'rowing', fusion: { weights: { lexical: 0 } } })
  assert.is(zero.error?.status, 400)
})

test('advanced_rag: the original query hits keep their places; variants add below the head', async () => {
  const kernel = await kernelWith()
  variants = 'sailing in the wind\nharbour storms'
  const q = { query: 'rowing', top_k: 4, legs: 'lexical' }
  const plain = bodyOf(await search(kernel, q)).data.map((d) => d.content)
  const run = await search(kernel, { ...q, advanced_rag: true })
  assert.is(run.error, undefined, run.error?.message)
  const withVariants = bodyOf(run).data.map((d) => d.content)
  // The query alone finds its rowing chunks; the variants' new hits come after them, none above.
  assert.equal(withVariants.slice(0, plain.length), plain)
  assert.ok(withVariants.includes('sailing boats need wind'), withVariants.join(' | '))
  // Hybrid, with a full original list: its first half is untouched, its hits keep their order.
  const h = { query: 'rowing boats', top_k: 4 }
  const full = bodyOf(await search(kernel, h)).data.map((d) => d.content)
  const merged = bodyOf(await search(kernel, { ...h, advanced_rag: 'true' })).data.map((d) => d.content)
  assert.equal(merged.slice(0, 2), full.slice(0, 2))
  const kept = merged.filter((c) => full.includes(c))
  assert.equal(
    kept,
    full.filter((c) => kept.includes(c)),
  )
})

test.run()
