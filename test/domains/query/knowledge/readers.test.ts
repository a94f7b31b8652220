/**
 * The knowledge base's readers on real files: Markdown and HTML fixtures in
 * test/fixtures/knowledge/, and a three-page PDF made with pdf-lib. Each yields blocks in
 * reading order; code and tables come out whole.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { GatewayError } from '../../../../kernel/contract/errors.js'
import { formatOf } from '../../../../domains/query/knowledge/readers/format.js'
import { readHtml } from '../../../../domains/query/knowledge/readers/html.js'
import { readMarkdown } from '../../../../domains/query/knowledge/readers/markdown.js'
import { readPdf } from '../../../../domains/query/knowledge/readers/pdf.js'
import { readDocument } from '../../../../domains/query/knowledge/readers/read-document.js'
import { readText } from '../../../../domains/query/knowledge/readers/text.js'
import { threePagePdf } from '../../../support/three-page-pdf.js'

const fixture = (name: string) => readFileSync(path.resolve('test/fixtures/knowledge', name), 'utf8')
const test = suite('knowledge readers')

test('plain text: paragraphs at blank lines', () => {
  const blocks = readText('First line\nstill first.\n\n  \nSecond.\r\n\r\nThird.')
  assert.equal(blocks, [
    { kind: 'paragraph', text: 'First line\nstill first.' },
    { kind: 'paragraph', text: 'Second.' },
    { kind: 'paragraph', text: 'Third.' },
  ])
})

test('Markdown: nested headings, a whole fence with its blank line, a GFM table, list items', () => {
  const blocks = readMarkdown(fixture('guide.md'))
  assert.equal(
    blocks.filter((b) => b.kind === 'heading').map((b) => [b.level, b.text]),
    [
      [1, 'Sluice operations'],
      [2, 'Install'],
      [3, 'On Debian'],
      [3, 'From source'],
      [2, 'Tuning'],
      [1, 'Appendix'],
    ],
  )
  const code = blocks.filter((b) => b.kind === 'code')
  assert.is(code.length, 1)
  assert.ok(code[0]!.text.startsWith('```sh\n') && code[0]!.text.endsWith('\n```'))
  assert.ok(code[0]!.text.includes('\n\n# the blank line above stays inside the fence\n'))
  const tables = blocks.filter((b) => b.kind === 'table')
  assert.is(tables.length, 1)
  assert.is(tables[0]!.text.split('\n').length, 4)
  assert.equal(
    blocks.filter((b) => b.kind === 'list').map((b) => b.text),
    ['- First item about queues.', '- Second item about budgets.'],
  )
  assert.ok(blocks.every((b) => b.pageNumber === undefined))
})

test('HTML: headings h1-h3, no script, style or noscript, a table and a <pre> kept whole', () => {
  const blocks = readHtml(fixture('page.html'))
  assert.equal(
    blocks.filter((b) => b.kind === 'heading').map((b) => [b.level, b.text]),
    [
      [1, 'Harbour manual'],
      [2, 'Berths'],
      [3, 'Fees'],
      [2, 'Signals'],
    ],
  )
  const all = blocks.map((b) => b.text).join('\n')
  for (const hidden of ['secretscript', 'crimson', 'hiddennoscript', 'example.org'])
    assert.not.ok(all.includes(hidden), hidden)
  assert.ok(all.includes('The harbour opens at dawn & closes at dusk.'))
  const table = blocks.find((b) => b.kind === 'table')
  assert.is(table?.text, '| Size | Fee |\n| --- | --- |\n| Small | 10 coins |\n| Large | 25 coins |')
  const code = blocks.find((b) => b.kind === 'code')
  assert.is(code?.text, "```\nfunction signal(flag) {\n  return flag === 'red' ? 'stop' : 'go'\n\n}\n```")
  assert.equal(
    blocks.filter((b) => b.kind === 'list').map((b) => b.text),
    ['* Red means stop.\n * Green means go.'],
  )
})

test('PDF: text by page, page numbers from 1', async () => {
  const blocks = await readPdf(await threePagePdf())
  assert.equal([...new Set(blocks.map((b) => b.pageNumber))], [1, 2, 3])
  const onPage = (n: number) =>
    blocks
      .filter((b) => b.pageNumber === n)
      .map((b) => b.text)
      .join(' ')
  assert.ok(onPage(1).includes('Alpha harbour'))
  assert.ok(onPage(2).includes('Bravo berths'))
  assert.ok(onPage(3).includes('Charlie signals'))
})

test('PDF: more pages than allowed is refused before reading (413); garbage is a 400', async () => {
  const bytes = await threePagePdf()
  try {
    await readPdf(bytes, { maxPages: 2, timeoutMs: 10_000 })
    assert.unreachable('should refuse')
  } catch (err) {
    assert.instance(err, GatewayError)
    assert.is((err as GatewayError).status, 413)
    assert.match(
      (err as GatewayError).message,
      /3 pages, more than are read; the limit is 2 \(knowledge\.readers\.max_pages\)/,
    )
  }
  try {
    await readPdf(new TextEncoder().encode('not a pdf at all'))
    assert.unreachable('should refuse')
  } catch (err) {
    assert.instance(err, GatewayError)
    assert.is((err as GatewayError).status, 400)
  }
  assert.is(bytes.length > 0, true, "the caller's bytes are left alone")
})

test('PDF: past its time limit, the extraction is abandoned with a 422', async () => {
  try {
    await readPdf(await threePagePdf(), { maxPages: 10, timeoutMs: 0 })
    assert.unreachable('should time out')
  } catch (err) {
    assert.instance(err, GatewayError)
    assert.match((err as GatewayError).message, /longer than 0 ms.*knowledge\.readers\.timeout_ms/)
  }
})

test('format: declared content type first, then extension; unknown is a 415', () => {
  assert.is(formatOf({ contentType: 'text/markdown; charset=utf-8', fileName: 'x.txt' }), 'markdown')
  assert.is(formatOf({ contentType: 'application/octet-stream', fileName: 'REPORT.PDF' }), 'pdf')
  assert.is(formatOf({ fileName: 'page.htm' }), 'html')
  assert.is(formatOf({ contentType: 'text/plain' }), 'text')
  for (const declared of [{ contentType: 'image/png', fileName: 'a.md' }, { fileName: 'data.docx' }, {}]) {
    try {
      formatOf(declared)
      assert.unreachable(JSON.stringify(declared))
    } catch (err) {
      assert.instance(err, GatewayError)
      assert.is((err as GatewayError).status, 415)
      assert.match((err as GatewayError).message, /supported: text\/plain/)
    }
  }
})

test('readDocument: bytes to blocks by the declared format, UTF-8 with a BOM', async () => {
  const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('# Title\n\nÉté.')])
  const { format, blocks } = await readDocument({ bytes: bom, fileName: 'notes.md' })
  assert.is(format, 'markdown')
  assert.equal(blocks, [
    { kind: 'heading', level: 1, text: 'Title' },
    { kind: 'paragraph', text: 'Été.' },
  ])
  const pdf = await readDocument({ bytes: await threePagePdf(), contentType: 'application/pdf' })
  assert.is(pdf.format, 'pdf')
  assert.is(pdf.blocks.at(-1)?.pageNumber, 3)
})

test.run()
