/**
 * knowledge-search's request options alone, with fake routes: `output_fields` shapes and their
 * 400, the rerank 400s and a rerank through a fake `rerank` route (order, top_n, the call's
 * body and key), and advanced_rag's one `chat-internal` call whose variants are retrieved too.
 */
import { Usage } from '../../../kernel/contract/usage.js'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import knowledgeSearch from '../../../plugins/knowledge-search/index.js'
import { parseVariants } from '../../../domains/query/knowledge/search/query-variants.js'
import type { CallOptions, Kernel } from '../../../kernel/contract/kernel.js'
import { reply } from '../../../kernel/contract/reply.js'
import { makeKernel, runPlugin } from '../../../bin/testing/harness.js'
import { bagOfWords, fakeEmbeddings, type FakeEmbeddings } from '../../support/fake-embeddings.js'

const test = suite('plugin knowledge-search options')
const admin = { admin: { authenticated: true as const } }
let kernel: Kernel
let fake: FakeEmbeddings
let calls: { routeId: string; body: Record<string, unknown>; options?: CallOptions }[]
let chatAnswer: string

const chunk = (index: number, content: string) => ({
  index,
  content,
  headingPath: [],
  tokens: 5,
  embedding: Float32Array.from(bagOfWords(content)),
})
const words = (s: string) => new Set(s.toLowerCase().match(/[a-z]+/g) ?? [])

test.before.each(async () => {
  fake = fakeEmbeddings()
  calls = []
  chatAnswer = '1. vessels powered by wind\n2. "sailing craft"\n'
  kernel = makeKernel({
    call: async (id, body, options) => {
      if (id === 'embeddings') return fake.call(id, body, options)
      calls.push({ routeId: id, body: body as Record<string, unknown>, options })
      if (id === 'chat-internal')
        return {
          reply: reply.json({ choices: [{ message: { role: 'assistant', content: chatAnswer } }] }),
          headers: new Map(),
          usage: new Usage(undefined),
        }
      // A fake reranker: the share of the query's words in the document; a "zebra" document wins.
      const b = body as { query: string; documents: string[]; top_n: number }
      const q = words(b.query)
      const scored = b.documents.map((d, index) => ({
        index,
        relevance_score: d.includes('zebra') ? 1 : [...words(d)].filter((w) => q.has(w)).length / (q.size || 1) / 2,
      }))
      return {
        reply: reply.json({ results: scored.sort((x, y) => y.relevance_score - x.relevance_score).slice(0, b.top_n) }),
        headers: new Map(),
        usage: new Usage(undefined),
      }
    },
  })
  const store = kernel.domains.query.knowledge.store
  await store.createCollection('p', 'docs', { dimension: 32 })
  await store.upsertDocument(
    'p',
    'docs',
    { sourceName: 'fruit', url: 'https://x/fruit', tags: ['food'], metadata: { year: 2020, author: 'ann' } },
    [chunk(0, 'apples and pears grow on trees'), chunk(1, 'bananas are yellow'), chunk(2, 'a zebra eats no apples')],
  )
  await store.upsertDocument('p', 'docs', { sourceName: 'boats', tags: ['sea'], metadata: { year: 2024 } }, [
    chunk(0, 'sailing boats need wind'),
    chunk(1, 'rowing boats need oars'),
  ])
})

const search = (body: object) =>
  runPlugin(knowledgeSearch, {}, { kernel, state: admin, params: { project: 'p', collection: 'docs' }, body })
type Run = Awaited<ReturnType<typeof search>>
const body = (run: Run) => (run.reply as { body: { data: Record<string, unknown>[]; query_variants?: string[] } }).body

test('output_fields: only the named fields (and index, score); custom metadata keys; default is everything', async () => {
  const run = await search({ query: 'pears', top_k: 1, legs: 'lexical', output_fields: ['content', 'url', 'author'] })
  assert.is(run.error, undefined, run.error?.message)
  const hit = body(run).data[0]!
  assert.equal(Object.keys(hit).sort(), ['author', 'content', 'index', 'score', 'url'])
  assert.equal([hit.content, hit.url, hit.author], ['apples and pears grow on trees', 'https://x/fruit', 'ann'])
  const all = body(await search({ query: 'apples', top_k: 1, legs: 'lexical' })).data[0]!
  assert.ok(
    ['source_name', 'url', 'tags', 'metadata', 'index', 'heading_path', 'page_number', 'content', 'score'].every(
      (k) => k in all,
    ),
  )
})

test('output_fields: unknown names are a 400 naming them', async () => {
  const run = await search({ query: 'apples', output_fields: ['content', 'colour', 'weight'] })
  assert.is(run.error?.status, 400)
  assert.match(run.error!.message, /unknown output_fields: colour, weight/)
})

test('rerank 400s: missing model or provider named; stray fields without rerank; provider must match the catalog', async () => {
  const noProvider = await search({ query: 'x', rerank: true, reranker_model: 'sim-rerank' })
  assert.is(noProvider.error?.status, 400)
  assert.match(noProvider.error!.message, /reranker_provider missing/)
  const neither = await search({ query: 'x', rerank: 'true' })
  assert.match(neither.error!.message, /reranker_model and reranker_provider missing/)
  const stray = await search({ query: 'x', reranker_model: 'sim-rerank', top_n: 2 })
  assert.is(stray.error?.status, 400)
  assert.match(stray.error!.message, /reranker_model, top_n given but rerank is not true/)
  const wrongApi = await search({ query: 'x', rerank: true, reranker_model: 'sim-rerank', reranker_provider: 'tei' })
  assert.match(wrongApi.error!.message, /speaks cohere/)
  const notRerank = await search({ query: 'x', rerank: true, reranker_model: 'sim-embed', reranker_provider: 'cohere' })
  assert.match(notRerank.error!.message, /not a rerank model/)
  assert.is((await search({ query: 'x', rerank: 'yes' })).error?.status, 400)
  assert.is(calls.length, 0)
})

test('rerank reorders through the rerank route under the knowledge key; top_n keeps the best', async () => {
  const run = await search({
    query: 'apples trees',
    top_k: 3,
    legs: 'lexical',
    rerank: true,
    reranker_model: 'sim-rerank',
    reranker_provider: 'cohere',
    top_n: 2,
  })
  assert.is(run.error, undefined, run.error?.message)
  const data = body(run).data
  assert.equal(
    data.map((h) => h.content),
    ['a zebra eats no apples', 'apples and pears grow on trees'],
  )
  assert.ok(data.every((h) => typeof h.rerank_score === 'number'))
  assert.is(calls.length, 1)
  assert.is(calls[0]!.routeId, 'rerank')
  assert.equal([calls[0]!.body.model, calls[0]!.body.query, calls[0]!.body.top_n], ['sim-rerank', 'apples trees', 2])
  assert.ok(calls[0]!.options?.principal)
  // Without top_n, top_k results stay.
  const k = await search({
    query: 'apples',
    top_k: 1,
    legs: 'lexical',
    rerank: 'true',
    reranker_model: 'sim-rerank',
    reranker_provider: 'cohere',
  })
  assert.is(body(k).data.length, 1)
})

test('rerank of documents: documents ordered by the reranker', async () => {
  const run = await search({
    query: 'boats apples',
    top_k: 2,
    legs: 'lexical',
    retrieval_type: 'document',
    rerank: true,
    reranker_model: 'sim-rerank',
    reranker_provider: 'cohere',
  })
  assert.equal(
    body(run).data.map((d) => d.source_name),
    ['fruit', 'boats'],
  )
})

test('advanced_rag: one chat-internal call; its variants are embedded with the query and retrieved', async () => {
  const run = await search({ query: 'rowing', top_k: 2, advanced_rag: 'true' })
  assert.is(run.error, undefined, run.error?.message)
  assert.equal(body(run).query_variants, ['vessels powered by wind', 'sailing craft'])
  const chats = calls.filter((c) => c.routeId === 'chat-internal')
  assert.is(chats.length, 1)
  assert.match(JSON.stringify(chats[0]!.body.messages), /rowing/)
  assert.equal(fake.calls[0]!.body.input, ['rowing', 'vessels powered by wind', 'sailing craft'])
  const contents = body(run).data.map((h) => h.content)
  // The original's hit stays; a variant brings in the sailing chunk the query alone shares no word with.
  assert.ok(contents.includes('rowing boats need oars'), contents.join())
  assert.ok(contents.includes('sailing boats need wind'), contents.join())
  assert.is(body(await search({ query: 'rowing', advanced_rag: 'false' })).query_variants, undefined)
})

test('parseVariants: list marks, quotes, duplicates of the query and blank lines go; bounded', () => {
  assert.equal(parseVariants('- Rowing\n\n1) boats with oars\n* "oar boats"\nmore\nand more', 'rowing', 2), [
    'boats with oars',
    'oar boats',
  ])
})

test.run()
