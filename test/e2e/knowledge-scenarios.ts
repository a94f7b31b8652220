/**
 * The knowledge API's end-to-end scenarios, one list run by a small suite per store
 * (knowledge-api*.test.ts): over a real socket, with the real embedding model (use-lite) and
 * the simulator's reranker; collections, JSON and multipart ingestion of Markdown, HTML and a
 * multi-page PDF (page numbers), the chunk, document and neighbor retrieval types, an `expr`
 * filter and tags, rerank, replacement, deletion, project isolation, atomic failure, and the
 * metering of the embedding calls.
 */
import * as assert from 'uvu/assert'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import {
  gatewayStores,
  serversFor,
  type GatewayStores,
  type KnowledgeStoreKind,
} from '../support/knowledge-gateways.js'
import { suiteNeeding } from '../support/needs-server.js'
import { PAGE_WORDS, threePagePdf } from '../support/three-page-pdf.js'
import { knowledgeClient, type KnowledgeClient } from './knowledge-client.js'

const ADMIN = 'sk-admin-kb-e2e'
const P = '/projects/alpha/collections'

const MARKDOWN = `# Gardening

## Roses
Prune roses in late winter, cutting each cane above an outward-facing bud. Feed them with compost in spring.

## Tomatoes
Tomatoes need full sun and deep watering twice a week; stake the vines when they flower.
`

const HTML = `<html><body><h1>Astronomy</h1><p>Jupiter is the largest planet of the solar system, a gas giant with a great red storm.</p>
<h2>Comets</h2><p>A comet's tail always points away from the Sun, pushed by the solar wind.</p></body></html>`

type Chunk = { content: string; source_name: string; page_number: number | null; index: number; heading_path: string[] }
const chunksOf = (body: Record<string, unknown>) => body.data as Chunk[]

export function knowledgeScenarios(kind: KnowledgeStoreKind): void {
  const test = suiteNeeding(serversFor(kind), `e2e knowledge API (${kind})`)
  let gw: TestGateway | undefined
  let stores: GatewayStores | undefined
  let kb: KnowledgeClient

  test.before(async () => {
    stores = await gatewayStores(kind)
    // Small chunks, so that each page of the PDF starts chunks of its own.
    gw = await startTestGateway({
      env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN },
      server: {
        stores: { records_flush_ms: 50, ...stores.stores } as never,
        knowledge: { chunking: { max_tokens: 64, overlap_tokens: 8 } } as never,
      },
    })
    kb = knowledgeClient(gw.url, ADMIN)
  })
  test.after(async () => {
    await gw?.close()
    await stores?.cleanup()
  })
  const scenario = (name: string, run: () => Promise<void>) => test(name, run)

  scenario('the gateway runs on the store asked for, with its vector path', async () => {
    const expected = {
      sqlite: /knowledge store: sqlite, vectors by sqlite-vec/,
      postgres: /knowledge store: postgres, pgvector not available/,
      pglite: /knowledge store: postgres, vectors by pgvector/,
    }[kind]
    assert.ok(
      gw!.logs.some((l) => expected.test(l)),
      `no log line matching ${expected}`,
    )
    assert.ok(gw!.logs.some((l) => /stores opened/.test(l) && l.includes(kind === 'sqlite' ? 'sqlite' : 'postgres')))
  })

  scenario('admin key required; create, duplicate 409, list', async () => {
    assert.is((await kb.call('GET', P, undefined, TEST_KEY)).status, 401)
    const made = await kb.call('POST', P, { name: 'docs' })
    assert.is(made.status, 201, JSON.stringify(made.body))
    assert.is(made.body.embedding_model, 'use-lite')
    assert.is(made.body.dimension, 512)
    const again = await kb.call('POST', P, { name: 'docs' })
    assert.is(again.status, 409)
    assert.match(again.body.error!.message, /already exists/)
    assert.is((await kb.call('POST', P, { name: 'no spaces allowed' })).status, 400)
    assert.equal(
      ((await kb.call('GET', P)).body.data as { name: string }[]).map((c) => c.name),
      ['docs'],
    )
  })

  scenario('ingest Markdown as JSON, HTML and a three-page PDF as multipart; list them', async () => {
    const md = await kb.call('PUT', `${P}/docs/documents/guides/garden.md`, {
      text: MARKDOWN,
      tags: ['garden'],
      metadata: { year: 2024 },
      url: 'https://example.org/garden',
    })
    assert.is(md.status, 200, JSON.stringify(md.body))
    assert.is(md.body.source_name, 'guides/garden.md')
    assert.ok((md.body.chunks as number) >= 2)
    const html = await kb.upload(`${P}/docs/documents`, new Blob([HTML], { type: 'text/html' }), 'sky.html', {
      source_name: 'sky',
      tags: '["space"]',
    })
    assert.is(html.status, 200, JSON.stringify(html.body))
    assert.equal(html.body.tags, ['space'])
    const pdf = await kb.upload(
      `${P}/docs/documents`,
      new Blob([await threePagePdf({ extraLines: 12 })], { type: 'application/pdf' }),
      'harbour.pdf',
      { metadata: '{"kind":"manual"}' },
    )
    assert.is(pdf.status, 200, JSON.stringify(pdf.body))
    assert.is(pdf.body.source_name, 'harbour.pdf')
    assert.ok((pdf.body.chunks as number) >= 3, `PDF chunks: ${pdf.body.chunks}`)
    const list = await kb.call('GET', `${P}/docs/documents`)
    assert.equal((list.body.data as { source_name: string }[]).map((d) => d.source_name).sort(), [
      'guides/garden.md',
      'harbour.pdf',
      'sky',
    ])
  })

  scenario('PDF chunks start on each page; each chunk has the page its text starts on', async () => {
    const all = await kb.search('docs', {
      query: 'Alpha Bravo Charlie harbour section',
      top_k: 50,
      source_names: ['harbour.pdf'],
    })
    assert.is(all.status, 200, JSON.stringify(all.body))
    const chunks = chunksOf(all.body).sort((a, b) => a.index - b.index)
    assert.equal([...new Set(chunks.map((c) => c.page_number))], [1, 2, 3])
    for (const c of chunks) {
      const first = PAGE_WORDS.map((w, p) => ({ p: p + 1, at: c.content.indexOf(w) }))
        .filter((x) => x.at >= 0)
        .sort((a, b) => a.at - b.at)[0]
      assert.is(c.page_number, first?.p, `chunk ${c.index} on page ${c.page_number}: ${c.content.slice(0, 60)}`)
    }
    const flags = await kb.search('docs', {
      query: 'Charlie signals use red and green flags',
      top_k: 3,
      legs: 'lexical',
      source_names: ['harbour.pdf'],
    })
    const hit = chunksOf(flags.body).find((c) => /Charlie signals/.test(c.content))
    assert.ok(hit, JSON.stringify(flags.body))
    assert.ok(hit.page_number === 3 || (hit.page_number === 2 && /Bravo/.test(hit.content)), JSON.stringify(hit))
  })

  scenario('chunk retrieval: the chunk about the topic, by both legs and by the vector leg', async () => {
    const roses = await kb.search('docs', { query: 'when should I prune my rose bushes?', top_k: 1 })
    assert.is(roses.status, 200, JSON.stringify(roses.body))
    const hit = chunksOf(roses.body)[0]!
    assert.match(hit.content, /Prune roses/)
    assert.equal(hit.heading_path, ['Gardening', 'Roses'])
    const vector = await kb.search('docs', {
      query: 'which way does the tail of a comet point',
      top_k: 1,
      legs: 'vector',
    })
    assert.match(chunksOf(vector.body)[0]!.content, /comet/)
  })

  scenario('document and neighbor retrieval', async () => {
    const docs = await kb.search('docs', { query: 'tomatoes watering', top_k: 1, retrieval_type: 'document' })
    assert.is(docs.status, 200, JSON.stringify(docs.body))
    const doc = (docs.body.data as { source_name: string; chunks: Chunk[] }[])[0]!
    assert.is(doc.source_name, 'guides/garden.md')
    assert.ok(doc.chunks.some((c) => /Tomatoes need/.test(c.content)))
    const near = await kb.search('docs', {
      query: 'Bravo berths hold one vessel each',
      top_k: 1,
      retrieval_type: 'neighbor',
      source_names: ['harbour.pdf'],
    })
    assert.is(near.status, 200, JSON.stringify(near.body))
    const passage = (near.body.data as { source_name: string; hits: number[]; chunks: Chunk[] }[])[0]!
    assert.is(passage.source_name, 'harbour.pdf')
    assert.is(passage.hits.length, 1)
    const indexes = passage.chunks.map((c) => c.index)
    assert.ok(indexes.length > 1 && indexes.includes(passage.hits[0]!), JSON.stringify(indexes))
    assert.equal(
      indexes,
      [...indexes].sort((a, b) => a - b),
    )
  })

  scenario('filters: an expr on tags and metadata, and the tags field, apply to both legs', async () => {
    const filtered = await kb.search('docs', { query: 'prune roses', top_k: 5, expr: 'array_contains(tags, "space")' })
    assert.is(filtered.status, 200, JSON.stringify(filtered.body))
    const names = chunksOf(filtered.body).map((c) => c.source_name)
    assert.ok(names.length > 0 && names.every((n) => n === 'sky'), names.join())
    const byMeta = await kb.search('docs', { query: 'roses', top_k: 5, expr: 'year >= 2024 and kind is null' })
    assert.equal([...new Set(chunksOf(byMeta.body).map((c) => c.source_name))], ['guides/garden.md'])
    const manual = await kb.search('docs', { query: 'roses', top_k: 50, expr: 'kind == "manual"' })
    assert.equal([...new Set(chunksOf(manual.body).map((c) => c.source_name))], ['harbour.pdf'])
    const tagged = await kb.search('docs', { query: 'prune roses', top_k: 5, tags: ['garden'] })
    const tags = new Set(chunksOf(tagged.body).map((c) => c.source_name))
    assert.equal([...tags], ['guides/garden.md'])
  })

  scenario('rerank with sim-rerank: the relevant chunk first, top_n kept', async () => {
    const { status, body } = await kb.search('docs', {
      query: 'When should I prune roses?',
      top_k: 5,
      rerank: true,
      reranker_model: 'sim-rerank',
      reranker_provider: 'cohere',
      top_n: 2,
    })
    assert.is(status, 200, JSON.stringify(body))
    const data = body.data as (Chunk & { rerank_score: number })[]
    assert.is(data.length, 2)
    assert.match(data[0]!.content, /Prune roses/)
    assert.ok(data[0]!.rerank_score >= data[1]!.rerank_score)
    assert.is(body.reranker_model, 'sim-rerank')
  })

  scenario('a bad filter is a 400 naming the position; a bad body is a 400', async () => {
    const bad = await kb.search('docs', { query: 'x', expr: 'year + 1 > 3' })
    assert.is(bad.status, 400)
    assert.match(bad.body.error!.message, /at character \d+/)
    assert.is((await kb.search('docs', { top_k: 1 })).status, 400)
    assert.is((await kb.call('PUT', `${P}/docs/documents/x.md`, { url: 'https://x' })).status, 400)
  })

  scenario('unsupported format is 415; an unreadable PDF leaves the old document (atomic)', async () => {
    assert.is(
      (await kb.call('PUT', `${P}/docs/documents/a.bin`, { content_base64: 'AAEC', content_type: 'application/zip' }))
        .status,
      415,
    )
    const before = await kb.call('GET', `${P}/docs/documents`)
    const broken = await kb.upload(
      `${P}/docs/documents`,
      new Blob([new Uint8Array([37, 80, 68, 70, 45, 1, 2, 3])], { type: 'application/pdf' }),
      'harbour.pdf',
      {},
    )
    assert.is(broken.status, 400)
    assert.equal((await kb.call('GET', `${P}/docs/documents`)).body.data, before.body.data)
    const still = await kb.search('docs', { query: 'Charlie signals flags', top_k: 1, source_names: ['harbour.pdf'] })
    assert.match(chunksOf(still.body)[0]!.content, /Charlie/)
  })

  scenario('replacing a document replaces its chunks; same source_name twice is idempotent', async () => {
    const text = '# Orchids\n\nOrchids like bright indirect light and weekly misting.'
    const replaced = await kb.call('PUT', `${P}/docs/documents/guides/garden.md`, { text })
    assert.is(replaced.status, 200)
    assert.is(replaced.body.chunks, 1)
    assert.equal(replaced.body.tags, [])
    await kb.call('PUT', `${P}/docs/documents/guides/garden.md`, { text })
    assert.is(((await kb.call('GET', `${P}/docs/documents`)).body.data as unknown[]).length, 3)
    const roses = await kb.search('docs', {
      query: 'prune roses late winter',
      top_k: 10,
      source_names: ['guides/garden.md'],
    })
    const contents = chunksOf(roses.body).map((c) => c.content)
    assert.is(contents.length, 1)
    assert.match(contents[0]!, /Orchids/)
  })

  scenario('project isolation: another project naming the collection gets the 404 of a missing one', async () => {
    const other = await kb.call('GET', '/projects/beta/collections/docs/documents')
    assert.is(other.status, 404)
    assert.is((await kb.call('GET', '/projects/alpha/collections/nope/documents')).status, 404)
    assert.is(other.body.error!.message, 'collection "docs" does not exist')
    assert.is((await kb.call('POST', '/projects/beta/collections/docs/search', { query: 'roses' })).status, 404)
    assert.is((await kb.call('PUT', '/projects/beta/collections/docs/documents/x.md', { text: 'hello' })).status, 404)
    assert.is((await kb.call('DELETE', '/projects/beta/collections/docs')).status, 404)
    assert.equal((await kb.call('GET', '/projects/beta/collections')).body.data, [])
  })

  scenario('delete a document, then the collection', async () => {
    assert.is((await kb.call('DELETE', `${P}/docs/documents/sky`)).status, 200)
    assert.is((await kb.call('DELETE', `${P}/docs/documents/sky`)).status, 404)
    assert.is(((await kb.call('GET', `${P}/docs/documents`)).body.data as unknown[]).length, 2)
    assert.is((await kb.call('DELETE', `${P}/docs`)).status, 200)
    assert.is((await kb.call('GET', `${P}/docs/documents`)).status, 404)
    assert.equal((await kb.call('GET', P)).body.data, [])
  })

  scenario('the embedding calls are metered: usage records of route embeddings under the embedding key', async () => {
    let data: { route: string; model: string; key: string }[] = []
    for (let i = 0; i < 50 && data.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50))
      data = (await kb.admin('/admin/records?model=use-lite&limit=100')) as typeof data
    }
    assert.ok(data.length > 0, 'no usage record')
    assert.ok(
      data.every((r) => r.route === 'embeddings'),
      JSON.stringify(data[0]),
    )
    assert.ok(
      data.some((r) => r.key === 'demo'),
      JSON.stringify(data[0]),
    )
  })

  test.run()
}
