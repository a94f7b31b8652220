import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import knowledgeSearch from '../../../plugins/knowledge-search/index.js'
import type { Kernel } from '../../../kernel/contract/kernel.js'
import { makeKernel, runPlugin, setupPlugin } from '../../../bin/testing/harness.js'
import { bagOfWords, fakeEmbeddings, type FakeEmbeddings } from '../../support/fake-embeddings.js'

const test = suite('plugin knowledge-search')
const admin = { admin: { authenticated: true as const } }
let kernel: Kernel
let fake: FakeEmbeddings

const chunk = (index: number, content: string) => ({
  index,
  content,
  headingPath: [],
  tokens: 5,
  embedding: Float32Array.from(bagOfWords(content)),
})

test.before.each(async () => {
  fake = fakeEmbeddings()
  kernel = makeKernel({ call: (id, body, options) => fake.call(id, body, options) })
  const store = kernel.domains.query.knowledge.store
  await store.createCollection('p', 'docs', { dimension: 32 })
  await store.upsertDocument('p', 'docs', { sourceName: 'fruit', tags: ['food'], metadata: { year: 2020 } }, [
    chunk(0, 'apples and pears grow on trees'),
    chunk(1, 'bananas are yellow'),
    chunk(2, 'cherries are red'),
  ])
  await store.upsertDocument('p', 'docs', { sourceName: 'boats', tags: ['sea'], metadata: { year: 2024 } }, [
    chunk(0, 'sailing boats need wind'),
    chunk(1, 'rowing boats need oars'),
  ])
})

type Hit = { source_name: string; content: string; index: number }
const search = (body: object, project = 'p') =>
  runPlugin(knowledgeSearch, {}, { kernel, state: admin, params: { project, collection: 'docs' }, body })
const data = (run: Awaited<ReturnType<typeof search>>) => (run.reply as { body: { data: Hit[] } }).body.data

test('options are checked as at load', async () => {
  try {
    await setupPlugin(knowledgeSearch, { max_top_k: 0 })
    assert.unreachable()
  } catch (err) {
    assert.match(String(err), /bad options/)
  }
})

test('chunk retrieval, hybrid: the query embedded once through the embeddings route', async () => {
  const run = await search({ query: 'rowing boats oars', top_k: 1 })
  assert.is(run.error, undefined, run.error?.message)
  assert.equal(
    data(run).map((h) => h.content),
    ['rowing boats need oars'],
  )
  assert.is(fake.calls.length, 1)
})

test('lexical alone never calls the model', async () => {
  const run = await search({ query: 'bananas', top_k: 1, legs: 'lexical' })
  assert.equal(
    data(run).map((h) => h.content),
    ['bananas are yellow'],
  )
  assert.is(fake.calls.length, 0)
})

test('filters: expr, tags and source_names apply; a bad expr is a 400 naming the position', async () => {
  const byExpr = await search({ query: 'boats wind', top_k: 5, expr: 'year < 2022' })
  assert.ok(data(byExpr).every((h) => h.source_name === 'fruit'))
  const byTag = await search({ query: 'apples', top_k: 5, tags: ['sea'] })
  assert.ok(data(byTag).length > 0 && data(byTag).every((h) => h.source_name === 'boats'))
  const byName = await search({ query: 'apples', top_k: 5, source_names: ['boats'] })
  assert.ok(data(byName).every((h) => h.source_name === 'boats'))
  const bad = await search({ query: 'x', expr: 'year = 1' })
  assert.is(bad.error?.status, 400)
  assert.match(bad.error?.message ?? '', /at character \d+/)
  const injection = await search({ query: 'x', expr: "source_name == 'a'; DROP TABLE kb_chunks" })
  assert.is(injection.error?.status, 400)
})

test('document and neighbor retrieval', async () => {
  const docs = await search({ query: 'bananas yellow', top_k: 1, retrieval_type: 'document' })
  const doc = (docs.reply as { body: { data: { source_name: string; chunks: Hit[] }[] } }).body.data[0]!
  assert.is(doc.source_name, 'fruit')
  assert.is(doc.chunks.length, 3)
  const around = await search({ query: 'bananas yellow', top_k: 1, retrieval_type: 'neighbor', legs: 'lexical' })
  const passage = (around.reply as { body: { data: { hits: number[]; chunks: Hit[] }[] } }).body.data[0]!
  assert.equal(passage.hits, [1])
  assert.equal(
    passage.chunks.map((c) => c.index),
    [0, 1, 2],
  )
})

test('bounds and isolation: top_k over the limit 400; another project 404', async () => {
  assert.is((await search({ query: 'x', top_k: 101 })).error?.status, 400)
  assert.is((await search({ top_k: 1 })).error?.status, 400)
  const other = await search({ query: 'apples' }, 'q')
  assert.is(other.error?.status, 404)
  assert.is(other.error?.message, 'collection "docs" does not exist')
})

test.run()
