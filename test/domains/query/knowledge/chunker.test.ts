/**
 * The chunker on the reader fixtures and on made-up text: heading paths, code and tables
 * whole when they fit and split with their fence or header when they do not, overlap within a section only, PDF page numbers, sizes, contiguous indexes,
 * every word kept, and a 2 MB text in linear time.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Block } from '../../../../domains/query/knowledge/blocks.js'
import { chunkDocument, DEFAULT_CHUNKING } from '../../../../domains/query/knowledge/chunker.js'
import type { Chunk } from '../../../../domains/query/knowledge/model.js'
import { readHtml } from '../../../../domains/query/knowledge/readers/html.js'
import { readMarkdown } from '../../../../domains/query/knowledge/readers/markdown.js'
import { readPdf } from '../../../../domains/query/knowledge/readers/pdf.js'
import { readText } from '../../../../domains/query/knowledge/readers/text.js'
import { countTokens } from '../../../../domains/query/knowledge/tokens.js'
import { threePagePdf } from '../../../support/three-page-pdf.js'

const fixture = (name: string) => readFileSync(path.resolve('test/fixtures/knowledge', name), 'utf8')
const words = (text: string) => text.match(/[\p{L}\p{N}]+/gu) ?? []
const test = suite('knowledge chunker')

/** The invariants every chunking must keep. */
function checkInvariants(
  blocks: readonly Block[],
  chunks: readonly Chunk[],
  maxTokens: number,
  sources: readonly Block[] = blocks,
): void {
  assert.equal(
    chunks.map((c) => c.index),
    chunks.map((_, i) => i),
    'indexes are contiguous from 0',
  )
  const present = new Set(chunks.flatMap((c) => words(c.content)))
  const missing = sources.flatMap((b) => words(b.text)).filter((w) => !present.has(w))
  assert.equal(missing, [], 'every word of the source is in some chunk')
  for (const c of chunks) {
    assert.is(c.tokens, countTokens(c.content), 'tokens counts the content')
    assert.ok(c.tokens <= maxTokens, `no chunk exceeds maxTokens: ${c.tokens} in ${c.content.slice(0, 60)}`)
  }
}

test('defaults are 512 tokens with 64 of overlap', () => {
  assert.equal(DEFAULT_CHUNKING, { maxTokens: 512, overlapTokens: 64 })
})

test('Markdown: one chunk per section, heading paths, fence and table whole', () => {
  const blocks = readMarkdown(fixture('guide.md'))
  const chunks = chunkDocument(blocks)
  checkInvariants(blocks, chunks, 512)
  assert.equal(
    chunks.map((c) => c.headingPath),
    [
      ['Sluice operations'],
      ['Sluice operations', 'Install'],
      ['Sluice operations', 'Install', 'On Debian'],
      ['Sluice operations', 'Install', 'From source'],
      ['Sluice operations', 'Tuning'],
      ['Appendix'],
    ],
  )
  const code = blocks.find((b) => b.kind === 'code')!.text
  const table = blocks.find((b) => b.kind === 'table')!.text
  assert.is(chunks.filter((c) => c.content.includes(code)).length, 1)
  assert.is(chunks.filter((c) => c.content.includes(table)).length, 1)
  assert.ok(chunks[2]!.content.startsWith('### On Debian\n\nInstall the package'))
  assert.ok(chunks[4]!.content.includes('| overlap_tokens | 64 |'))
  assert.ok(
    chunks[4]!.content.endsWith('- First item about queues.\n- Second item about budgets.'),
    'list items stay one per line',
  )
  assert.ok(chunks.every((c) => c.pageNumber === undefined))
})

test('a code block or table that fits moves whole; a bigger one is split by lines or rows, each piece with its fence or header', () => {
  const sentence = (i: number) => `Sentence number ${i} talks about the harbour and its many boats.`
  const prose = Array.from({ length: 12 }, (_, i) => sentence(i)).join(' ')
  const smallCode =
    '```js\n' + Array.from({ length: 8 }, (_, i) => `const v${i} = compute(${i}) // step ${i}`).join('\n') + '\n```'
  const bigLines = Array.from({ length: 60 }, (_, i) => `value_${i} = transform(value_${i - 1}, factor=${i})`)
  const bigCode = '```py\n' + bigLines.join('\n') + '\n```'
  const rows = Array.from({ length: 40 }, (_, i) => `| row ${i} | cell ${i} |`)
  const table = '| a | b |\n| --- | --- |\n' + rows.join('\n')
  const blocks: Block[] = [
    { kind: 'heading', level: 1, text: 'Mixed' },
    { kind: 'paragraph', text: prose },
    { kind: 'code', text: smallCode },
    { kind: 'paragraph', text: prose },
    { kind: 'code', text: bigCode },
    { kind: 'table', text: table },
    { kind: 'paragraph', text: 'After the table.' },
  ]
  const maxTokens = 120
  assert.ok(countTokens(bigCode) > 3 * maxTokens && countTokens(table) > 2 * maxTokens, 'the big blocks are big')
  const chunks = chunkDocument(blocks, { maxTokens, overlapTokens: 20 })
  checkInvariants(blocks, chunks, maxTokens)
  assert.is(chunks.filter((c) => c.content.includes(smallCode)).length, 1, 'the small block appears whole once')
  const fences = chunks.filter((c) => (c.content.match(/```/g) ?? []).length % 2 === 1)
  assert.equal(fences, [], 'no chunk holds half a fence')
  // Code pieces: each is "```py" … "```", and every line appears once, in order.
  const codePieces = chunks.flatMap((c) => c.content.match(/```py\n[\s\S]*?\n```/g) ?? [])
  assert.ok(codePieces.length >= 4, `the big code block is in several pieces (${codePieces.length})`)
  assert.equal(
    codePieces.flatMap((p) => p.split('\n').slice(1, -1)),
    bigLines,
    'the pieces hold every line once, in order, each inside a py fence',
  )
  // Table pieces: each starts with the header row and separator; every row appears once, in order.
  const tablePieces = chunks.flatMap((c) => c.content.match(/\| a \| b \|\n\| --- \| --- \|(\n\| row .*)+/g) ?? [])
  assert.ok(tablePieces.length >= 3, `the big table is in several pieces (${tablePieces.length})`)
  assert.equal(
    tablePieces.flatMap((p) => p.split('\n').slice(2)),
    rows,
    'the pieces hold every row once, in order, each under the header',
  )
  assert.ok(chunks.every((c) => c.headingPath.join('/') === 'Mixed'))
})

test('a code line longer than a chunk is cut at spaces, still inside the fence; an unfenced block is split by lines', () => {
  const longLine = Array.from({ length: 200 }, (_, i) => `arg${i}`).join(' ')
  const blocks: Block[] = [
    { kind: 'code', text: '~~~sh\nrun ' + longLine + '\necho done\n~~~' },
    { kind: 'code', text: Array.from({ length: 80 }, (_, i) => `    line ${i} of indented code`).join('\n') },
  ]
  const maxTokens = 64
  const chunks = chunkDocument(blocks, { maxTokens, overlapTokens: 0 })
  checkInvariants(blocks, chunks, maxTokens)
  const fenced = chunks.flatMap((c) => c.content.match(/~~~sh\n[\s\S]*?\n~~~/g) ?? [])
  assert.ok(fenced.length >= 3, 'the long line is in several fenced pieces')
  assert.ok(chunks.some((c) => c.content.includes('    line 79 of indented code')))
})

test('overlap: consecutive chunks of a section share whole sentences, within overlapTokens; none across a heading', () => {
  const prose = Array.from({ length: 40 }, (_, i) => `Fact ${i} is that tide ${i} rises.`).join(' ')
  const blocks: Block[] = [
    { kind: 'heading', level: 1, text: 'One' },
    { kind: 'paragraph', text: prose },
    { kind: 'heading', level: 1, text: 'Two' },
    { kind: 'paragraph', text: 'Only sentence of two.' },
  ]
  const chunks = chunkDocument(blocks, { maxTokens: 60, overlapTokens: 20 })
  checkInvariants(blocks, chunks, 60)
  const one = chunks.filter((c) => c.headingPath[0] === 'One')
  assert.ok(one.length >= 4)
  for (let i = 1; i < one.length; i++) {
    const previous = one[i - 1]!.content
    const firstSentence = one[i]!.content.match(/^Fact \d+ is that tide \d+ rises\./)?.[0]
    assert.ok(firstSentence && previous.endsWith(firstSentence), `chunk ${i} starts with the end of chunk ${i - 1}`)
    const shared = one[i]!.content.split(/(?<=\.) /).filter((s) => previous.includes(s))
    assert.ok(countTokens(shared.join(' ')) <= 20, 'overlap stays within overlapTokens')
  }
  const two = chunks.filter((c) => c.headingPath[0] === 'Two')
  assert.equal(
    two.map((c) => c.content),
    ['# Two\n\nOnly sentence of two.'],
  )
  const none = chunkDocument(blocks, { maxTokens: 60, overlapTokens: 0 })
  const total = (cs: Chunk[]) => cs.reduce((n, c) => n + words(c.content).length, 0)
  assert.ok(total(none) < total(chunks), 'without overlap nothing is repeated')
  assert.is(
    total(none),
    blocks.reduce((n, b) => n + words(b.text).length, 0),
  )
})

test('paragraphs first: a paragraph that fits a chunk is not cut between two', () => {
  const para = (p: number) => Array.from({ length: 5 }, (_, i) => `Paragraph ${p} sentence ${i} is here.`).join(' ')
  const blocks = readText(Array.from({ length: 10 }, (_, p) => para(p)).join('\n\n'))
  const chunks = chunkDocument(blocks, { maxTokens: 100, overlapTokens: 0 })
  checkInvariants(blocks, chunks, 100)
  for (const block of blocks) assert.is(chunks.filter((c) => c.content.includes(block.text)).length, 1)
})

test('PDF: each chunk carries the page where it starts', async () => {
  const blocks = await readPdf(await threePagePdf())
  const chunks = chunkDocument(blocks, { maxTokens: 16, overlapTokens: 0 })
  checkInvariants(blocks, chunks, 16)
  assert.equal([...new Set(chunks.map((c) => c.pageNumber))], [1, 2, 3])
  for (const c of chunks) {
    const expected =
      c.content.includes('Alpha') || c.content.includes('Boats')
        ? 1
        : c.content.includes('Bravo') || c.content.includes('Fees')
          ? 2
          : 3
    if (/Alpha|Bravo|Charlie|Boats|Fees|Red means/.test(c.content)) assert.is(c.pageNumber, expected, c.content)
  }
  const merged = chunkDocument(blocks)
  assert.is(merged.length, 1, 'three short pages fit one chunk')
  assert.is(merged[0]!.pageNumber, 1)
})

test('HTML: heading paths from h1-h3', () => {
  const blocks = readHtml(fixture('page.html'))
  const chunks = chunkDocument(blocks)
  checkInvariants(blocks, chunks, 512)
  assert.equal(
    chunks.map((c) => c.headingPath.join(' > ')),
    ['Harbour manual', 'Harbour manual > Berths', 'Harbour manual > Berths > Fees', 'Harbour manual > Signals'],
  )
})

test('a sentence longer than a chunk, and a run without spaces, are cut to fit', () => {
  const long = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ')
  const run = 'x'.repeat(3000) + 'é'.repeat(500)
  const blocks: Block[] = [
    { kind: 'paragraph', text: long },
    { kind: 'paragraph', text: run },
  ]
  const chunks = chunkDocument(blocks, { maxTokens: 50, overlapTokens: 10 })
  // the run without spaces is cut inside its one word: its words are checked by concatenation below
  checkInvariants(blocks, chunks, 50, blocks.slice(0, 1))
  assert.ok(chunks.every((c) => c.tokens <= 50))
  assert.is(
    chunks
      .filter((c) => /x|é/.test(c.content))
      .map((c) => c.content)
      .join('')
      .replace(/\s/g, ''),
    run,
  )
})

test('deterministic, and options are checked', () => {
  const blocks = readMarkdown(fixture('guide.md'))
  assert.equal(
    chunkDocument(blocks, { maxTokens: 40, overlapTokens: 8 }),
    chunkDocument(blocks, { maxTokens: 40, overlapTokens: 8 }),
  )
  assert.throws(() => chunkDocument(blocks, { maxTokens: 100, overlapTokens: 60 }), /half of maxTokens/)
  assert.throws(() => chunkDocument(blocks, { maxTokens: 4, overlapTokens: 0 }), /at least 16/)
})

test('a 2 MB text is chunked, and its chunks cover it (its speed is a benchmark figure, printed only)', () => {
  let seed = 42
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648)
  const vocabulary = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`)
  const paragraphs: string[] = []
  let size = 0
  while (size < 2_000_000) {
    const sentences = Array.from(
      { length: 1 + (next() % 8) },
      () => Array.from({ length: 4 + (next() % 20) }, () => vocabulary[next() % vocabulary.length]).join(' ') + '.',
    )
    const paragraph = sentences.join(' ')
    paragraphs.push(paragraph)
    size += paragraph.length + 2
  }
  const text = paragraphs.join('\n\n')
  const started = performance.now()
  const blocks = readText(text)
  const chunks = chunkDocument(blocks)
  const ms = performance.now() - started
  console.log(`  2 MB text (${text.length} chars): ${chunks.length} chunks in ${ms.toFixed(0)} ms`)
  checkInvariants(blocks, chunks, 512)
})

test.run()
