/**
 * The routes the Query domain calls are settings (server.yaml `query.routes`), not literals:
 * with other ids configured, a search's embeddings, variants and rerank calls go to them.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import knowledgeSearch from '../../../plugins/knowledge-search/index.js'
import { Usage } from '../../../kernel/contract/usage.js'
import { reply } from '../../../kernel/contract/reply.js'
import { configDirWith, makeKernel, runPlugin } from '../../../bin/testing/harness.js'
import { defaultConfigDir } from '../../../kernel/contract/paths.js'
import { bagOfWords, fakeEmbeddings } from '../../support/fake-embeddings.js'
import fs from 'node:fs'
import path from 'node:path'

const test = suite('plugin knowledge-search: the Query domain calls the routes of query.routes')

test('embeddings, variants and rerank go to the configured route ids', async () => {
  const server = fs.readFileSync(path.join(defaultConfigDir, 'server.yaml'), 'utf8')
  const routes = '  routes: { chat: my-chat, embeddings: my-embeddings, rerank: my-rerank }\n'
  // Added under the file's `query:` section (present in the embedded default).
  assert.match(server, /^query:.*\n/m)
  const configDir = configDirWith({ 'server.yaml': server.replace(/^query:.*\n/m, `query:\n${routes}`) })
  const fake = fakeEmbeddings()
  const called: string[] = []
  const kernel = makeKernel({
    configDir,
    call: async (id, body, options) => {
      called.push(id)
      if (id === 'my-embeddings') return fake.call('embeddings', body, options)
      if (id === 'my-chat')
        return {
          reply: reply.json({ choices: [{ message: { role: 'assistant', content: '1. a variant' } }] }),
          headers: new Map(),
          usage: new Usage(undefined),
        }
      const b = body as { documents: string[] }
      return {
        reply: reply.json({ results: b.documents.map((_, index) => ({ index, relevance_score: 1 - index / 10 })) }),
        headers: new Map(),
        usage: new Usage(undefined),
      }
    },
  })
  assert.equal(kernel.domains.query.routes, { chat: 'my-chat', embeddings: 'my-embeddings', rerank: 'my-rerank' })
  const store = kernel.domains.query.knowledge.store
  await store.createCollection('p', 'docs', { dimension: 32 })
  const content = 'apples and pears grow on trees'
  await store.upsertDocument('p', 'docs', { sourceName: 'fruit', tags: [] }, [
    { index: 0, content, headingPath: [], tokens: 6, embedding: Float32Array.from(bagOfWords(content)) },
  ])
  const run = await runPlugin(
    knowledgeSearch,
    {},
    {
      kernel,
      state: { admin: { authenticated: true as const } },
      params: { project: 'p', collection: 'docs' },
      body: {
        query: 'pears',
        top_k: 1,
        advanced_rag: true,
        rerank: true,
        reranker_model: 'sim-rerank',
        reranker_provider: 'cohere',
      },
    },
  )
  assert.is(run.error, undefined, run.error?.message)
  assert.equal([...new Set(called)].sort(), ['my-chat', 'my-embeddings', 'my-rerank'])
})

test.run()
