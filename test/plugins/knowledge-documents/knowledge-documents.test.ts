import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import knowledgeDocuments from '../../../plugins/knowledge-documents/index.js'
import { GatewayError } from '../../../kernel/contract/errors.js'
import type { Kernel } from '../../../kernel/contract/kernel.js'
import { makeKernel, runPlugin, setupPlugin } from '../../../bin/testing/harness.js'
import { fakeEmbeddings, type FakeEmbeddings } from '../../support/fake-embeddings.js'
import { threePagePdf } from '../../support/three-page-pdf.js'

const test = suite('plugin knowledge-documents')
const admin = { admin: { authenticated: true as const } }
let kernel: Kernel
let fake: FakeEmbeddings

test.before.each(async () => {
  fake = fakeEmbeddings()
  kernel = makeKernel({ call: (id, body, options) => fake.call(id, body, options) })
  await kernel.domains.query.knowledge.store.createCollection('p1', 'docs', {
    dimension: 32,
    embeddingModel: 'use-lite',
  })
})

const params = (source_name?: string, project = 'p1') => ({
  project,
  collection: 'docs',
  ...(source_name ? { source_name } : {}),
})

test('options: the action is checked as at load', async () => {
  try {
    await setupPlugin(knowledgeDocuments, { action: 'nope' })
    assert.unreachable()
  } catch (err) {
    assert.match(String(err), /bad options/)
  }
})

test('put: Markdown as JSON is chunked, embedded through the embeddings route under the embedding key, stored', async () => {
  const run = await runPlugin(
    knowledgeDocuments,
    { action: 'put' },
    {
      kernel,
      state: admin,
      params: params('guide.md'),
      body: {
        text: '# A\n\nFirst part about apples.\n\n# B\n\nSecond part about boats.',
        tags: ['t'],
        metadata: { year: 2024 },
      },
    },
  )
  assert.is(run.error, undefined, run.error?.message)
  const body = (run.reply as { body: { chunks: number; source_name: string; tags: string[] } }).body
  assert.is(body.source_name, 'guide.md')
  assert.is(body.chunks, 2)
  assert.equal(body.tags, ['t'])
  assert.is(fake.calls.length, 1)
  assert.is(fake.calls[0]!.routeId, 'embeddings')
  assert.is(fake.calls[0]!.body.model, 'use-lite')
  assert.is(fake.calls[0]!.options?.principal?.keyId, 'demo')
  assert.is(run.nextCalled, false)
})

test('put: content_base64 of a PDF with its type; bad base64 and a missing content are 400', async () => {
  const pdf = Buffer.from(await threePagePdf()).toString('base64')
  const ok = await runPlugin(
    knowledgeDocuments,
    { action: 'put' },
    { kernel, state: admin, params: params('h.pdf'), body: { content_base64: pdf, content_type: 'application/pdf' } },
  )
  assert.is(ok.error, undefined, ok.error?.message)
  const badB64 = await runPlugin(
    knowledgeDocuments,
    { action: 'put' },
    { kernel, state: admin, params: params('h.pdf'), body: { content_base64: '***', content_type: 'application/pdf' } },
  )
  assert.is(badB64.error?.status, 400)
  const none = await runPlugin(
    knowledgeDocuments,
    { action: 'put' },
    { kernel, state: admin, params: params('h.pdf'), body: { url: 'https://x' } },
  )
  assert.is(none.error?.status, 400)
  const both = await runPlugin(
    knowledgeDocuments,
    { action: 'put' },
    { kernel, state: admin, params: params('h.pdf'), body: { text: 'a', content_base64: 'YQ==' } },
  )
  assert.is(both.error?.status, 400)
  const badKey = await runPlugin(
    knowledgeDocuments,
    { action: 'put' },
    { kernel, state: admin, params: params('h.txt'), body: { text: 'a', metadata: { 'bad key': 1 } } },
  )
  assert.is(badKey.error?.status, 400)
})

test('415 for a format the knowledge base does not read, before any embedding', async () => {
  const run = await runPlugin(
    knowledgeDocuments,
    { action: 'put' },
    {
      kernel,
      state: admin,
      params: params('a.zip'),
      body: { content_base64: 'AAEC', content_type: 'application/zip' },
    },
  )
  assert.is(run.error?.status, 415)
  assert.is(fake.calls.length, 0)
})

test('atomic: a failed embedding call leaves the old document and its chunks', async () => {
  await runPlugin(
    knowledgeDocuments,
    { action: 'put' },
    { kernel, state: admin, params: params('n.txt'), body: { text: 'old text about apples' } },
  )
  fake.failNext = new GatewayError(429, 'token budget exceeded')
  const failed = await runPlugin(
    knowledgeDocuments,
    { action: 'put' },
    { kernel, state: admin, params: params('n.txt'), body: { text: 'new text about boats' } },
  )
  assert.is(failed.error?.status, 429)
  const chunks = await kernel.domains.query.knowledge.store.lexical('p1', 'docs', 'apples', 5)
  assert.is(chunks.length, 1)
  assert.is((await kernel.domains.query.knowledge.store.lexical('p1', 'docs', 'boats', 5)).length, 0)
})

test('upload: the multipart file and its fields; source_name defaults to the file name', async () => {
  const run = await runPlugin(
    knowledgeDocuments,
    { action: 'upload' },
    {
      kernel,
      params: params(),
      state: {
        ...admin,
        upload: {
          file: {
            filename: 'page.html',
            contentType: 'text/html',
            data: Buffer.from('<h1>Title</h1><p>Body text.</p>'),
          },
          fields: { tags: 'a, b', metadata: '{"k":"v"}' },
        },
      },
    },
  )
  assert.is(run.error, undefined, run.error?.message)
  const body = (run.reply as { body: { source_name: string; tags: string[]; metadata: object } }).body
  assert.is(body.source_name, 'page.html')
  assert.equal(body.tags, ['a', 'b'])
  assert.equal(body.metadata, { k: 'v' })
  const badJson = await runPlugin(
    knowledgeDocuments,
    { action: 'upload' },
    {
      kernel,
      params: params(),
      state: { ...admin, upload: { file: { filename: 'x.txt', data: Buffer.from('x') }, fields: { metadata: '{' } } },
    },
  )
  assert.is(badJson.error?.status, 400)
  const unknown = await runPlugin(
    knowledgeDocuments,
    { action: 'upload' },
    {
      kernel,
      params: params(),
      state: { ...admin, upload: { file: { filename: 'x.txt', data: Buffer.from('x') }, fields: { colour: 'red' } } },
    },
  )
  assert.match(unknown.error?.message ?? '', /unknown form field "colour"/)
})

test('list and delete; another project gets the 404 of a missing collection', async () => {
  await runPlugin(
    knowledgeDocuments,
    { action: 'put' },
    { kernel, state: admin, params: params('a.txt'), body: { text: 'alpha' } },
  )
  const list = await runPlugin(knowledgeDocuments, { action: 'list' }, { kernel, state: admin, params: params() })
  assert.equal(
    (list.reply as { body: { data: { source_name: string }[] } }).body.data.map((d) => d.source_name),
    ['a.txt'],
  )
  const other = await runPlugin(
    knowledgeDocuments,
    { action: 'list' },
    { kernel, state: admin, params: params(undefined, 'p2') },
  )
  const missing = await runPlugin(
    knowledgeDocuments,
    { action: 'list' },
    { kernel, state: admin, params: { project: 'p1', collection: 'nope' } },
  )
  assert.is(other.error?.status, 404)
  assert.is(other.rendered?.body, missing.rendered?.body?.replace('nope', 'docs'))
  const del = await runPlugin(
    knowledgeDocuments,
    { action: 'delete' },
    { kernel, state: admin, params: params('a.txt') },
  )
  assert.is(del.error, undefined)
  const again = await runPlugin(
    knowledgeDocuments,
    { action: 'delete' },
    { kernel, state: admin, params: params('a.txt') },
  )
  assert.is(again.error?.status, 404)
})

test.run()
