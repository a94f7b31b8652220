/**
 * Hostile documents (issue 31) through the real gateway: the knowledge API with the admin key
 * and the chat upload with a project token. Each is answered with a clear 4xx naming the limit
 * and the document (or a correct 200), while a probe asks GET /healthz every 100 ms and every
 * probe is answered 200; afterwards a normal chat and a normal query are served. Sizes are
 * smaller than the where the same limit is hit (the test gateway's limits are smaller
 * too: timeout_ms 3000, max_inflated_bytes 32 MiB); bench/hostile-documents.ts runs the
 * issue's sizes. Nothing here is timed.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestGateway, TEST_DEV_TOKEN, TEST_KEY, TEST_SERVICE_TOKEN, type TestGateway } from '../support/gateway.js'
import {
  backtickRuns,
  emphasisOpeners,
  inflatingPdf,
  manyPagesPdf,
  markdownTable,
  nestedBlockquotes,
  nestedDivs,
  nestedList,
  plainText,
  tableParagraphs,
} from '../support/hostile-documents.js'
import { knowledgeClient, type KnowledgeClient } from './knowledge-client.js'

const test = suite('e2e hostile documents')
const ADMIN = 'sk-admin-hostile-docs'
const COLLECTION = '/projects/alpha/collections/hostile'
let gw: TestGateway
let kb: KnowledgeClient

test.before(async () => {
  gw = await startTestGateway({
    env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN },
    server: {
      knowledge: { readers: { timeout_ms: 3000, max_inflated_bytes: 32 * 1024 * 1024 } } as never,
    },
  })
  kb = knowledgeClient(gw.url, ADMIN)
  const made = await kb.call('POST', '/projects/alpha/collections', { name: 'hostile' })
  assert.is(made.status, 201, JSON.stringify(made.body))
})
test.after(() => gw?.close())

/** Runs `work` while GET /healthz is asked every 100 ms; every probe must be answered 200. */
async function probed<T>(work: () => Promise<T>): Promise<T> {
  const answers: Array<Promise<number>> = []
  const probe = () =>
    answers.push(
      fetch(`${gw.url}/healthz`, { signal: AbortSignal.timeout(20_000) }).then(
        async (r) => (await r.arrayBuffer(), r.status),
        () => 0,
      ),
    )
  probe()
  const timer = setInterval(probe, 100)
  try {
    return await work()
  } finally {
    clearInterval(timer)
    const statuses = await Promise.all(answers)
    assert.ok(statuses.length > 0)
    assert.equal(
      statuses.filter((s) => s !== 200),
      [],
      `every probe answered 200 (${statuses.length} probes)`,
    )
  }
}

type Reply = { status: number; message: string }

async function chatUpload(files: Array<{ name: string; type: string; data: Buffer | string }>): Promise<Reply> {
  const form = new FormData()
  form.append('project_id', 'demo')
  for (const f of files) form.append('docs', new Blob([f.data], { type: f.type }), f.name)
  const res = await fetch(`${gw.url}/query/v1/chat_upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_DEV_TOKEN}` },
    body: form,
  })
  const body = (await res.json()) as { error?: { message?: string } }
  return { status: res.status, message: body.error?.message ?? '' }
}

async function knowledgeUpload(name: string, type: string, data: Buffer | string): Promise<Reply> {
  const r = await kb.upload(`${COLLECTION}/documents`, new Blob([data], { type }), name, {})
  return { status: r.status, message: r.body.error?.message ?? '' }
}

/** A refusal: its status, and a message naming the document and the limit. */
function refused(got: Reply, status: number, name: string, limit: string): void {
  assert.is(got.status, status, got.message)
  assert.ok(got.message.includes(name), `names the document: ${got.message}`)
  assert.ok(got.message.includes(`knowledge.readers.${limit}`), `names the limit: ${got.message}`)
}

/**
 * A document whose reading time is the machine's: read within the deadline (200) or refused
 * past it (422 naming the document and `timeout_ms`); either is a clear answer, and which one
 * depends on the machine's speed, which no test asserts.
 */
function readOrTimedOut(got: Reply, name: string): void {
  if (got.status === 200) return
  refused(got, 422, name, 'timeout_ms')
}

const MD = 'text/markdown'
const HTML = 'text/html'
const PDF = 'application/pdf'

// The 5,000 columns × 1,000 rows: 500 × 200 already outlasts the deadline here.
const TABLE = markdownTable(500, 200)
test('a huge Markdown table: read, or 422 past the deadline, by chat upload and by knowledge upload', async () => {
  readOrTimedOut(await probed(() => chatUpload([{ name: 'table.md', type: MD, data: TABLE }])), 'table.md')
  readOrTimedOut(await probed(() => knowledgeUpload('table.md', MD, TABLE)), 'table.md')
})

test('long runs of backticks: read, or 422 past the deadline (chat upload)', async () => {
  readOrTimedOut(
    await probed(() => chatUpload([{ name: 'ticks.md', type: MD, data: backtickRuns(200_000) }])),
    'ticks.md',
  )
})

test('plain text over max_text_bytes: 413 (knowledge upload; 9 MiB for the issue 60 MiB, same limit)', async () => {
  refused(
    await probed(() => knowledgeUpload('big.txt', 'text/plain', plainText(9 << 20))),
    413,
    'big.txt',
    'max_text_bytes',
  )
})

test('PDFs whose streams inflate past max_inflated_bytes: 413 (48 MiB and 200 MiB over a 32 MiB limit)', async () => {
  const pdf48 = await inflatingPdf(48 << 20)
  const pdf200 = await inflatingPdf(200 << 20)
  assert.ok(pdf48.length < 100_000 && pdf200.length < 300_000, 'small on disk')
  const files = Array.from({ length: 3 }, (_, i) => ({ name: `bomb${i}.pdf`, type: PDF, data: pdf48 }))
  const got = await probed(() => chatUpload(files))
  assert.is(got.status, 413, got.message)
  assert.match(got.message, /^file bomb\d\.pdf: .*knowledge\.readers\.max_inflated_bytes/)
  refused(await probed(() => knowledgeUpload('bomb.pdf', PDF, pdf200)), 413, 'bomb.pdf', 'max_inflated_bytes')
})

test('a PDF of 2,001 pages: 413 over max_pages, before any page is read', async () => {
  refused(
    await probed(() => chatUpload([{ name: 'pages.pdf', type: PDF, data: manyPagesPdf(2001, 16) }])),
    413,
    'pages.pdf',
    'max_pages',
  )
})

test('a Markdown list nested 5,000 deep on one line: 422 by chat upload and by knowledge upload', async () => {
  const list = nestedList(5000)
  refused(await probed(() => chatUpload([{ name: 'list.md', type: MD, data: list }])), 422, 'list.md', 'max_depth')
  refused(await probed(() => knowledgeUpload('list.md', MD, list)), 422, 'list.md', 'max_depth')
})

test('emphasis openers (200,000 for the issue 1 million): read, or 422 past the deadline, both doors', async () => {
  const stars = emphasisOpeners(200_000)
  readOrTimedOut(await probed(() => chatUpload([{ name: 'stars.md', type: MD, data: stars }])), 'stars.md')
  readOrTimedOut(await probed(() => knowledgeUpload('stars.md', MD, stars)), 'stars.md')
})

test('HTML with 200,000 nested divs: 422 over max_depth', async () => {
  refused(
    await probed(() => chatUpload([{ name: 'divs.html', type: HTML, data: nestedDivs(200_000) }])),
    422,
    'divs.html',
    'max_depth',
  )
})

test('HTML with 200,000 paragraphs in a table (1 million in the issue): a clear 4xx, not a 500', async () => {
  const got = await probed(() => chatUpload([{ name: 'rows.html', type: HTML, data: tableParagraphs(200_000) }]))
  assert.ok(got.status === 200 || got.status === 413 || got.status === 422, `${got.status} ${got.message}`)
  if (got.status !== 200) assert.match(got.message, /^file rows\.html: .*knowledge\.readers\./)
})

test('4,000 nested block quotes: 422 over max_depth', async () => {
  refused(
    await probed(() => chatUpload([{ name: 'quotes.md', type: MD, data: nestedBlockquotes(4000) }])),
    422,
    'quotes.md',
    'max_depth',
  )
})

test('a bulk load goes on past a refused document: the next document is ingested', async () => {
  refused(await knowledgeUpload('deep.md', MD, nestedList(1000)), 422, 'deep.md', 'max_depth')
  const ok = await knowledgeUpload('fine.md', MD, '# Harbour\n\nThe harbour opens at dawn.\n')
  assert.is(ok.status, 200, ok.message)
  const docs = (await kb.call('GET', `${COLLECTION}/documents`)).body.data as Array<{ source_name: string }>
  assert.equal(
    docs.map((d) => d.source_name),
    ['fine.md'],
    'only the readable document is stored',
  )
})

test('an upload with a hostile document is refused by name; the same upload without it is served', async () => {
  const normal = { name: 'notes.md', type: MD, data: '# Notes\n\nBring the tide tables.\n' }
  const bad = await chatUpload([normal, { name: 'quotes.md', type: MD, data: nestedBlockquotes(4000) }])
  refused(bad, 422, 'quotes.md', 'max_depth')
  assert.is((await chatUpload([normal])).status, 200)
})

test('afterwards, a normal chat and a normal query are served', async () => {
  const chat = await gw.openai().chat.completions.create({
    model: 'sim-chat-instruct',
    messages: [{ role: 'user', content: 'hello' }],
    max_tokens: 8,
  })
  assert.ok(chat.choices.length > 0)
  const res = await fetch(`${gw.url}/query/v1/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_SERVICE_TOKEN}` },
    body: JSON.stringify({ endpoint: 'query', query: 'When does the harbour open?' }),
  })
  assert.is(res.status, 200, await res.clone().text())
})

test.run()
