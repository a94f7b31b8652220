import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import knowledgeCollections from '../../../plugins/knowledge-collections/index.js'
import type { Kernel } from '../../../kernel/contract/kernel.js'
import { makeKernel, runPlugin } from '../../../bin/testing/harness.js'
import { fakeEmbeddings, type FakeEmbeddings, DIMENSION } from '../../support/fake-embeddings.js'

const test = suite('plugin knowledge-collections')
const admin = { admin: { authenticated: true as const } }
let kernel: Kernel
let fake: FakeEmbeddings

test.before.each(() => {
  fake = fakeEmbeddings()
  kernel = makeKernel({ call: (id, body, options) => fake.call(id, body, options) })
})

test('requires the admin slot, as the loader would', async () => {
  try {
    await runPlugin(knowledgeCollections, { action: 'list' }, { kernel, params: { project: 'p' } })
    assert.unreachable()
  } catch (err) {
    assert.match(String(err), /requires 'admin'/)
  }
})

test('create learns the dimension from one probe of the model; 201', async () => {
  const run = await runPlugin(
    knowledgeCollections,
    { action: 'create' },
    { kernel, state: admin, params: { project: 'p' }, body: { name: 'docs', embedding_model: 'my-embedder' } },
  )
  assert.is(run.error, undefined, run.error?.message)
  assert.is((run.reply as { status: number }).status, 201)
  const body = (run.reply as { body: { name: string; dimension: number; embedding_model: string; documents: number } })
    .body
  assert.equal([body.name, body.dimension, body.embedding_model, body.documents], ['docs', DIMENSION, 'my-embedder', 0])
  assert.is(fake.calls.length, 1)
  assert.is(fake.calls[0]!.body.model, 'my-embedder')
})

test('the default embedding model is server.yaml knowledge.embedding_model', async () => {
  const run = await runPlugin(
    knowledgeCollections,
    { action: 'create' },
    { kernel, state: admin, params: { project: 'p' }, body: { name: 'docs' } },
  )
  assert.is((run.reply as { body: { embedding_model: string } }).body.embedding_model, 'use-lite')
})

test('409 on a duplicate (without a probe), 400 on a bad name or body', async () => {
  await runPlugin(
    knowledgeCollections,
    { action: 'create' },
    { kernel, state: admin, params: { project: 'p' }, body: { name: 'docs' } },
  )
  const dup = await runPlugin(
    knowledgeCollections,
    { action: 'create' },
    { kernel, state: admin, params: { project: 'p' }, body: { name: 'docs' } },
  )
  assert.is(dup.error?.status, 409)
  assert.is(fake.calls.length, 1)
  for (const body of [{ name: 'a b' }, { name: '' }, {}, { name: 'x', extra: 1 }]) {
    const bad = await runPlugin(
      knowledgeCollections,
      { action: 'create' },
      { kernel, state: admin, params: { project: 'p' }, body },
    )
    assert.is(bad.error?.status, 400, JSON.stringify(body))
  }
  const badProject = await runPlugin(
    knowledgeCollections,
    { action: 'list' },
    { kernel, state: admin, params: { project: '../etc' } },
  )
  assert.is(badProject.error?.status, 400)
})

test("list shows only the project's own; delete of another project's is the 404 of a missing one", async () => {
  await runPlugin(
    knowledgeCollections,
    { action: 'create' },
    { kernel, state: admin, params: { project: 'a' }, body: { name: 'docs' } },
  )
  const listB = await runPlugin(
    knowledgeCollections,
    { action: 'list' },
    { kernel, state: admin, params: { project: 'b' } },
  )
  assert.equal((listB.reply as { body: { data: unknown[] } }).body.data, [])
  const delB = await runPlugin(
    knowledgeCollections,
    { action: 'delete' },
    { kernel, state: admin, params: { project: 'b', collection: 'docs' } },
  )
  assert.is(delB.error?.status, 404)
  assert.is(delB.error?.message, 'collection "docs" does not exist')
  const delA = await runPlugin(
    knowledgeCollections,
    { action: 'delete' },
    { kernel, state: admin, params: { project: 'a', collection: 'docs' } },
  )
  assert.is(delA.error, undefined)
  const listA = await runPlugin(
    knowledgeCollections,
    { action: 'list' },
    { kernel, state: admin, params: { project: 'a' } },
  )
  assert.equal((listA.reply as { body: { data: unknown[] } }).body.data, [])
})

test.run()
