/**
 * `node dist/bench/hostile-documents.js [--seed N] [--url http://127.0.0.1:PORT]`: the hostile
 * documents of issue 31 at the issue's sizes, one at a time, each while GET /healthz is asked
 * every 100 ms. Prints one line per case: the door, the status, the refusal, and the longest
 * probe wait (ms). With `--url`, against a running gateway (loopback only; the admin key in
 * SLUICE_ADMIN_KEY and a developer token of project `demo` in SLUICE_DEMO_DEV_TOKEN); without
 * it, against a test gateway started here (inputs are made before each case's probe window).
 * The seed orders the cases. Bounded: 13 cases, each document at most 64 MiB.
 */
import { option } from './bench-setup.js'
import { startTestGateway, TEST_DEV_TOKEN, TEST_KEY } from '../test/support/gateway.js'
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
} from '../test/support/hostile-documents.js'

const seed = option('seed', 31)
const urlAt = process.argv.indexOf('--url')
const given = urlAt > 0 ? process.argv[urlAt + 1] : undefined
if (given && !/^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?\/?$/.test(given))
  throw new Error('--url must be a loopback URL')

const ADMIN = process.env.SLUICE_ADMIN_KEY ?? 'sk-admin-hostile-bench'
const DEV = process.env.SLUICE_DEMO_DEV_TOKEN ?? TEST_DEV_TOKEN
const gw = given ? undefined : await startTestGateway({ env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN } })
const url = (given ?? gw!.url).replace(/\/$/, '')
const collection = `${url}/knowledge/v1/projects/bench/collections/hostile`
await fetch(`${url}/knowledge/v1/projects/bench/collections`, {
  method: 'POST',
  headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'hostile' }),
})

type Doc = { name: string; type: string; data: Buffer | string }
type Case = { label: string; door: 'chat' | 'knowledge'; make: () => Promise<Doc[]> }
const one = (name: string, type: string, data: () => Buffer | string | Promise<Buffer>) => async () => [
  { name, type, data: await data() },
]
const MD = 'text/markdown'
const cases: Case[] = [
  { label: 'Markdown table 5,000 × 1,000', door: 'chat', make: one('table.md', MD, () => markdownTable(5000, 1000)) },
  {
    label: 'Markdown table 5,000 × 1,000',
    door: 'knowledge',
    make: one('table.md', MD, () => markdownTable(5000, 1000)),
  },
  { label: 'backtick runs, 2 MB', door: 'chat', make: one('ticks.md', MD, () => backtickRuns(2_000_000)) },
  { label: 'plain text 60 MiB', door: 'knowledge', make: one('big.txt', 'text/plain', () => plainText(60 << 20)) },
  {
    label: '20 PDFs inflating to 48 MiB',
    door: 'chat',
    make: async () => {
      const pdf = await inflatingPdf(48 << 20)
      return Array.from({ length: 20 }, (_, i) => ({ name: `bomb${i}.pdf`, type: 'application/pdf', data: pdf }))
    },
  },
  {
    label: 'PDF inflating to 1 GiB',
    door: 'chat',
    make: one('gib.pdf', 'application/pdf', () => inflatingPdf(1 << 30)),
  },
  {
    label: 'PDF 2,000 pages × 16 KiB',
    door: 'chat',
    make: one('pages.pdf', 'application/pdf', () => manyPagesPdf(2000, 16384)),
  },
  { label: 'list nested 5,000 deep', door: 'chat', make: one('list.md', MD, () => nestedList(5000)) },
  { label: 'list nested 5,000 deep', door: 'knowledge', make: one('list.md', MD, () => nestedList(5000)) },
  { label: '1 million emphasis openers', door: 'chat', make: one('stars.md', MD, () => emphasisOpeners(1_000_000)) },
  {
    label: '1 million emphasis openers',
    door: 'knowledge',
    make: one('stars.md', MD, () => emphasisOpeners(1_000_000)),
  },
  { label: '200,000 nested divs', door: 'chat', make: one('divs.html', 'text/html', () => nestedDivs(200_000)) },
  {
    label: '1 million <p> in a table',
    door: 'chat',
    make: one('rows.html', 'text/html', () => tableParagraphs(1_000_000)),
  },
  { label: '4,000 nested block quotes', door: 'chat', make: one('quotes.md', MD, () => nestedBlockquotes(4000)) },
]

/** A small seeded shuffle (mulberry32), so a run can be repeated in the same order. */
function shuffled<T>(items: T[], s: number): T[] {
  let a = s >>> 0
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

async function send(c: Case, docs: Doc[]): Promise<{ status: number; message: string }> {
  const form = new FormData()
  if (c.door === 'chat') form.append('project_id', 'demo')
  for (const d of docs) form.append(c.door === 'chat' ? 'docs' : 'file', new Blob([d.data], { type: d.type }), d.name)
  const res = await fetch(c.door === 'chat' ? `${url}/query/v1/chat_upload` : `${collection}/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.door === 'chat' ? DEV : ADMIN}` },
    body: form,
    signal: AbortSignal.timeout(600_000),
  })
  const body = (await res.json().catch(() => ({}))) as { error?: { message?: string } }
  return { status: res.status, message: body.error?.message ?? '' }
}

console.log(`hostile documents: seed ${seed}, ${given ? `gateway ${url}` : 'a test gateway in this process'}`)
for (const c of shuffled(cases, seed)) {
  const docs = await c.make()
  const bytes = docs.reduce((n, d) => n + Buffer.byteLength(d.data), 0)
  let longest = 0
  const waits: Array<Promise<void>> = []
  const probe = () => {
    const sent = performance.now()
    waits.push(
      fetch(`${url}/healthz`)
        .then((r) => r.arrayBuffer())
        .then(
          () => void (longest = Math.max(longest, performance.now() - sent)),
          () => void (longest = Number.POSITIVE_INFINITY),
        ),
    )
  }
  const timer = setInterval(probe, 100)
  const started = performance.now()
  const got = await send(c, docs).catch((err: Error) => ({ status: 0, message: err.message }))
  const took = performance.now() - started
  clearInterval(timer)
  await Promise.all(waits)
  console.log(
    `${c.door.padEnd(9)} ${c.label.padEnd(30)} ${String(bytes).padStart(9)} B  status ${got.status}  ${(took / 1000).toFixed(1)} s  longest probe ${longest.toFixed(0)} ms  ${got.message.slice(0, 110)}`,
  )
}
// Then the gateway serves others as usual: a normal chat (a tenant key) and a normal query (the dev token).
const chat = await fetch(`${url}/v1/chat/completions`, {
  method: 'POST',
  headers: {
    authorization: `Bearer ${given ? (process.env.SLUICE_DEMO_KEY ?? TEST_KEY) : TEST_KEY}`,
    'content-type': 'application/json',
  },
  body: JSON.stringify({ model: 'sim-chat-instruct', messages: [{ role: 'user', content: 'Hello' }] }),
})
const query = await fetch(`${url}/query/v1/query`, {
  method: 'POST',
  headers: { authorization: `Bearer ${DEV}`, 'content-type': 'application/json' },
  body: JSON.stringify({ endpoint: 'query', project_id: 'demo', query: 'What does the sample say about keys?' }),
})
console.log(`then a normal chat: status ${chat.status}; a normal query: status ${query.status}`)
await gw?.close()
