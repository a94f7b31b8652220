/**
 * The knowledge base's ingestion API end to end, over a real socket, with the real embedding
 * model (use-lite) behind the `embeddings` route: collections, JSON and multipart ingestion of
 * Markdown, HTML and PDF, search that finds the chunk about the question's topic, replacement,
 * deletion, project isolation, atomic failure, and the metering of the embedding calls.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { threePagePdf } from '../support/three-page-pdf.js'

const test = suite('e2e knowledge API')
const ADMIN = 'sk-admin-kb-e2e'
let gw: TestGateway

test.before(async () => {
  gw = await startTestGateway({ env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN }, server: { stores: { records_flush_ms: 50 } as never } })
})
test.after(() => gw.close())

type Body = Record<string, unknown> & { error?: { message: string; code?: string } }

async function call(method: string, path: string, body?: unknown, key = ADMIN): Promise<{ status: number; body: Body }> {
  const res = await fetch(`${gw.url}/knowledge/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as Body }
}

async function upload(path: string, file: Blob, fileName: string, fields: Record<string, string>): Promise<{ status: number; body: Body }> {
  const form = new FormData()
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  form.append('file', file, fileName)
  const res = await fetch(`${gw.url}/knowledge/v1${path}`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}` }, body: form })
  return { status: res.status, body: (await res.json()) as Body }
}

const MARKDOWN = `# Gardening

## Roses
Prune roses in late winter, cutting each cane above an outward-facing bud. Feed them with compost in spring.

## Tomatoes
Tomatoes need full sun and deep watering twice a week; stake the vines when they flower.
`

const HTML = `<html><body><h1>Astronomy</h1><p>Jupiter is the largest planet of the solar system, a gas giant with a great red storm.</p>
<h2>Comets</h2><p>A comet's tail always points away from the Sun, pushed by the solar wind.</p></body></html>`

const P = '/projects/alpha/collections'

test('admin key required; create, duplicate 409, list', async () => {
  assert.is((await call('GET', P, undefined, TEST_KEY)).status, 401)
  const made = await call('POST', P, { name: 'docs' })
  assert.is(made.status, 201, JSON.stringify(made.body))
  assert.is(made.body.embedding_model, 'use-lite')
  assert.is(made.body.dimension, 512)
  const again = await call('POST', P, { name: 'docs' })
  assert.is(again.status, 409)
  assert.match(again.body.error!.message, /already exists/)
  const bad = await call('POST', P, { name: 'no spaces allowed' })
  assert.is(bad.status, 400)
  const list = await call('GET', P)
  assert.equal((list.body.data as { name: string }[]).map((c) => c.name), ['docs'])
})

test('ingest Markdown as JSON, HTML and a PDF as multipart; list them', async () => {
  const md = await call('PUT', `${P}/docs/documents/guides/garden.md`, { text: MARKDOWN, tags: ['garden'], metadata: { year: 2024 }, url: 'https://example.org/garden' })
  assert.is(md.status, 200, JSON.stringify(md.body))
  assert.is(md.body.source_name, 'guides/garden.md')
  assert.ok((md.body.chunks as number) >= 2)
  const html = await upload(`${P}/docs/documents`, new Blob([HTML], { type: 'text/html' }), 'sky.html', { source_name: 'sky', tags: '["space"]' })
  assert.is(html.status, 200, JSON.stringify(html.body))
  assert.equal(html.body.tags, ['space'])
  const pdf = await upload(`${P}/docs/documents`, new Blob([await threePagePdf()], { type: 'application/pdf' }), 'harbour.pdf', { metadata: '{"kind":"manual"}' })
  assert.is(pdf.status, 200, JSON.stringify(pdf.body))
  assert.is(pdf.body.source_name, 'harbour.pdf')
  const list = await call('GET', `${P}/docs/documents`)
  assert.equal((list.body.data as { source_name: string }[]).map((d) => d.source_name).sort(), ['guides/garden.md', 'harbour.pdf', 'sky'])
})

test('search finds the chunk about the topic, with page numbers for a PDF', async () => {
  const roses = await call('POST', `${P}/docs/search`, { query: 'when should I prune my rose bushes?', top_k: 1 })
  assert.is(roses.status, 200, JSON.stringify(roses.body))
  const hit = (roses.body.data as { content: string; heading_path: string[] }[])[0]!
  assert.match(hit.content, /Prune roses/)
  assert.equal(hit.heading_path, ['Gardening', 'Roses'])
  const vector = await call('POST', `${P}/docs/search`, { query: 'which way does the tail of a comet point', top_k: 1, legs: 'vector' })
  assert.match((vector.body.data as { content: string }[])[0]!.content, /comet/)
  const flags = await call('POST', `${P}/docs/search`, { query: 'what do red and green flags mean', top_k: 1, source_names: ['harbour.pdf'] })
  // The three short pages fit in one chunk, which starts on page 1.
  const page = (flags.body.data as { page_number: number; content: string }[])[0]!
  assert.is(page.page_number, 1)
  assert.match(page.content, /Charlie signals/)
  const docs = await call('POST', `${P}/docs/search`, { query: 'tomatoes watering', top_k: 1, retrieval_type: 'document' })
  assert.is((docs.body.data as { source_name: string }[])[0]!.source_name, 'guides/garden.md')
  const filtered = await call('POST', `${P}/docs/search`, { query: 'prune roses', top_k: 5, expr: 'array_contains(tags, "space")' })
  assert.is(filtered.status, 200, JSON.stringify(filtered.body))
  const names = (filtered.body.data as { source_name: string }[]).map((c) => c.source_name)
  assert.ok(names.length > 0 && names.every((n) => n === 'sky'), names.join())
  const byMeta = await call('POST', `${P}/docs/search`, { query: 'roses', top_k: 5, expr: 'year >= 2024 and kind is null' })
  assert.equal([...new Set((byMeta.body.data as { source_name: string }[]).map((c) => c.source_name))], ['guides/garden.md'])
})

test('a bad filter is a 400 naming the position; a bad body is a 400', async () => {
  const bad = await call('POST', `${P}/docs/search`, { query: 'x', expr: 'year + 1 > 3' })
  assert.is(bad.status, 400)
  assert.match(bad.body.error!.message, /at character \d+/)
  assert.is((await call('POST', `${P}/docs/search`, { top_k: 1 })).status, 400)
  assert.is((await call('PUT', `${P}/docs/documents/x.md`, { url: 'https://x' })).status, 400)
})

test('unsupported format is 415; an unreadable PDF leaves the old document (atomic)', async () => {
  const odd = await call('PUT', `${P}/docs/documents/a.bin`, { content_base64: 'AAEC', content_type: 'application/zip' })
  assert.is(odd.status, 415)
  const before = await call('GET', `${P}/docs/documents`)
  const broken = await upload(`${P}/docs/documents`, new Blob([new Uint8Array([37, 80, 68, 70, 45, 1, 2, 3])], { type: 'application/pdf' }), 'harbour.pdf', {})
  assert.is(broken.status, 400)
  const after = await call('GET', `${P}/docs/documents`)
  assert.equal(after.body.data, before.body.data)
  const still = await call('POST', `${P}/docs/search`, { query: 'Charlie signals flags', top_k: 1, source_names: ['harbour.pdf'] })
  assert.match((still.body.data as { content: string }[])[0]!.content, /Charlie/)
})

test('replacing a document replaces its chunks; same source_name twice is idempotent', async () => {
  const replaced = await call('PUT', `${P}/docs/documents/guides/garden.md`, { text: '# Orchids\n\nOrchids like bright indirect light and weekly misting.' })
  assert.is(replaced.status, 200)
  assert.is(replaced.body.chunks, 1)
  assert.equal(replaced.body.tags, [])
  await call('PUT', `${P}/docs/documents/guides/garden.md`, { text: '# Orchids\n\nOrchids like bright indirect light and weekly misting.' })
  const list = await call('GET', `${P}/docs/documents`)
  assert.is((list.body.data as unknown[]).length, 3)
  const roses = await call('POST', `${P}/docs/search`, { query: 'prune roses late winter', top_k: 10, source_names: ['guides/garden.md'] })
  const contents = (roses.body.data as { content: string }[]).map((c) => c.content)
  assert.equal(contents.length, 1)
  assert.match(contents[0]!, /Orchids/)
})

test('project isolation: another project naming the collection gets the 404 of a missing one', async () => {
  const other = await call('GET', '/projects/beta/collections/docs/documents')
  const missing = await call('GET', '/projects/alpha/collections/nope/documents')
  assert.is(other.status, 404)
  assert.is(missing.status, 404)
  assert.is(other.body.error!.message, 'collection "docs" does not exist')
  assert.is((await call('POST', '/projects/beta/collections/docs/search', { query: 'roses' })).status, 404)
  assert.is((await call('PUT', '/projects/beta/collections/docs/documents/x.md', { text: 'hello' })).status, 404)
  assert.is((await call('DELETE', '/projects/beta/collections/docs')).status, 404)
  assert.equal((await call('GET', '/projects/beta/collections')).body.data, [])
})

test('delete a document, then the collection', async () => {
  assert.is((await call('DELETE', `${P}/docs/documents/sky`)).status, 200)
  assert.is((await call('DELETE', `${P}/docs/documents/sky`)).status, 404)
  const list = await call('GET', `${P}/docs/documents`)
  assert.is((list.body.data as unknown[]).length, 2)
  assert.is((await call('DELETE', `${P}/docs`)).status, 200)
  assert.is((await call('GET', `${P}/docs/documents`)).status, 404)
  assert.equal((await call('GET', P)).body.data, [])
})

test('the embedding calls are metered: usage records of route embeddings under the embedding key', async () => {
  let data: { route: string; model: string; key: string }[] = []
  for (let i = 0; i < 50 && data.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 50))
    const res = await fetch(`${gw.url}/admin/records?model=use-lite&limit=100`, { headers: { authorization: `Bearer ${ADMIN}` } })
    data = ((await res.json()) as { data: typeof data }).data
  }
  assert.ok(data.length > 0, 'no usage record')
  assert.ok(data.every((r) => r.route === 'embeddings'), JSON.stringify(data[0]))
  assert.ok(data.some((r) => r.key === 'demo'), JSON.stringify(data[0]))
})

test.run()
