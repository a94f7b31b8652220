/**
 * Pages nobody here wrote (issue 28, points 1 and 4), end to end over a real socket with the
 * real embedder (use-lite, 1,024 tokens per input) and the simulator's reranker (512 per pair):
 * a page with a code block and a table far bigger than a chunk is ingested whole (split by
 * lines and rows, fence and header kept); chunks bigger than the embedder takes are fitted;
 * `rerank: true` over chunks of about 512 tokens succeeds, on the knowledge search and on
 * POST /v1/rerank; a reranker that still refuses is a 502 naming the model.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { knowledgeClient, type KnowledgeClient } from './knowledge-client.js'
import { countTokens } from '../../domains/query/knowledge/tokens.js'
import { readFileSync } from 'node:fs'
import path from 'node:path'

const ADMIN = 'sk-admin-kb-big'
const P = '/projects/alpha/collections'
const test = suite('e2e knowledge: big pages, fitted embedder inputs, rerank on real chunks')
let gw: TestGateway
let kb: KnowledgeClient

const codeLines = Array.from(
  { length: 160 },
  (_, i) => `SELECT col_${i}, json_extract(payload, '$.field_${i}') FROM table_${i % 7} WHERE id > ${i * 13};`,
)
const tableRows = Array.from({ length: 120 }, (_, i) => `| sqlite3_option_${i} | ${i * 3} | turns feature ${i} on |`)
const PAGE = [
  '# SQL reference',
  'This page lists every statement the engine accepts.',
  '## Statements',
  '```sql',
  ...codeLines,
  '```',
  '## Options',
  '| option | default | meaning |',
  '| --- | --- | --- |',
  ...tableRows,
  '',
  'The end of the page mentions the lighthouse keeper.',
].join('\n')

/** English prose of about `tokens` cl100k tokens. */
function prose(tokens: number, topic: string): string {
  const sentences: string[] = []
  let i = 0
  while (countTokens(sentences.join(' ')) < tokens)
    sentences.push(`The ${topic} paragraph ${i++} explains how the harbour pilots guide large ships past the rocks.`)
  return sentences.join(' ')
}

const catalogWithLiar = () =>
  `${readFileSync(path.resolve('config/models.yaml'), 'utf8')}
  - id: sim-rerank-overstated      # the catalog says more than the server takes: the server refuses
    model_type: rerank
    backend: sim
    served_name: sim-rerank
    reported_name: sim-rerank-overstated
    context_window: 8192
`

test.before(async () => {
  gw = await startTestGateway({
    env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN },
    files: { 'config/models.yaml': catalogWithLiar() },
  })
  kb = knowledgeClient(gw.url, ADMIN)
  assert.is((await kb.call('POST', P, { name: 'big' })).status, 201)
})
test.after(() => gw?.close())

test('a page with a code block and a table far bigger than a chunk is ingested whole', async () => {
  assert.ok(countTokens(PAGE) > 4_000, `the page is big: ${countTokens(PAGE)} tokens`)
  const put = await kb.call('PUT', `${P}/big/documents/sql.md`, { text: PAGE })
  assert.is(put.status, 200, JSON.stringify(put.body))
  assert.ok((put.body.chunks as number) >= 8, `chunks: ${put.body.chunks}`)
  // The last line of the code block and the last row of the table are found, each in a piece
  // that carries its fence with its language or the table's header.
  const all = await kb.search('big', { query: 'col_159 sqlite3_option_119 lighthouse', top_k: 50, legs: 'lexical' })
  assert.is(all.status, 200, JSON.stringify(all.body))
  const contents = (all.body.data as { content: string }[]).map((d) => d.content)
  const code = contents.find((c) => c.includes(codeLines[159]!))
  assert.ok(code, 'the last line of the code block is stored')
  assert.match(code!, /```sql\n[\s\S]*\n```/)
  const table = contents.find((c) => c.includes(tableRows[119]!))
  assert.ok(table, 'the last row of the table is stored')
  assert.ok(table!.startsWith('| option | default | meaning |\n| --- | --- | --- |'), table!.slice(0, 80))
  const end = await kb.search('big', { query: 'lighthouse keeper', top_k: 1 })
  assert.match((end.body.data as { content: string }[])[0]!.content, /lighthouse keeper/)
})

test('rerank: true over chunks of about 512 tokens succeeds (knowledge search)', async () => {
  for (const [i, topic] of ['north', 'south', 'east'].entries()) {
    const put = await kb.call('PUT', `${P}/big/documents/prose-${i}.txt`, { text: prose(500, topic) })
    assert.is(put.status, 200, JSON.stringify(put.body))
  }
  const res = await kb.search('big', {
    query: 'How do harbour pilots guide ships past the rocks?',
    top_k: 5,
    rerank: true,
    reranker_model: 'sim-rerank',
    reranker_provider: 'cohere',
  })
  assert.is(res.status, 200, JSON.stringify(res.body))
  const data = res.body.data as { tokens?: number; content: string; rerank_score: number }[]
  assert.is(data.length, 5)
  assert.ok(
    data.some((d) => countTokens(d.content) > 400),
    'some reranked chunks are near the 512-token chunk size',
  )
})

test('POST /v1/rerank fits each pair to the 512-token window: long documents and a long query succeed', async () => {
  const documents = [prose(600, 'first'), prose(900, 'second'), 'A short note about cats.']
  const query = prose(400, 'query')
  const res = await fetch(`${gw.url}/v1/rerank`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim-rerank', query, documents, return_documents: true }),
  })
  const body = (await res.json()) as { results: { index: number; document: { text: string } }[] }
  assert.is(res.status, 200, JSON.stringify(body).slice(0, 300))
  assert.is(body.results.length, 3)
  // The documents come back as the client sent them, not as they were cut.
  for (const r of body.results) assert.is(r.document.text, documents[r.index])
})

test('a reranker that refuses a pair as too long is a 502 naming the model, not a 400', async () => {
  const res = await fetch(`${gw.url}/v1/rerank`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim-rerank-overstated', query: 'ships', documents: [prose(900, 'long')] }),
  })
  const body = (await res.json()) as { error: { message: string } }
  assert.is(res.status, 502, JSON.stringify(body))
  assert.match(body.error.message, /sim-rerank-overstated/)
  assert.match(body.error.message, /too long/)
})

test.run()
