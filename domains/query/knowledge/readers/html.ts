/**
 * HTML through html-to-text, which handles entities, whitespace and the many ways pages nest
 * their text. Its own output flattens structure, so headings, <pre> and tables are formatted
 * by our own formatters with a marker line around them; the marked text is then cut into
 * blocks. Headings h1-h6 become heading blocks (so heading paths work as in Markdown), <pre>
 * stays one code block with its line breaks, and a table becomes one Markdown table block.
 * Scripts, styles, images and link targets are dropped. html-to-text recurses once per level
 * of elements, so nesting is measured first (depth.ts) and a document over the limit refused.
 */
import { convert, type FormatCallback } from 'html-to-text'
import type { Block } from '../blocks.js'
import { htmlNesting } from './depth.js'
import { DEFAULT_READER_LIMITS, overLimit } from './limits.js'

// html-to-text strips private-use characters, so the marker is a visible symbol (U+241E,
// "symbol for record separator") that we remove from the input first.
const MARK = '\u241E'
type DomNode = { type?: string; name?: string; data?: string; children?: DomNode[] }

export function readHtml(html: string, maxDepth = DEFAULT_READER_LIMITS.maxDepth): Block[] {
  if (htmlNesting(html, maxDepth) > maxDepth)
    throw overLimit('maxDepth', maxDepth, `the HTML nests more than ${maxDepth} elements`)
  const marked = convert(html.replaceAll(MARK, ''), {
    wordwrap: false,
    selectors: [
      ...[1, 2, 3, 4, 5, 6].map((n) => ({ selector: `h${n}`, format: 'markedHeading', options: { level: n } })),
      { selector: 'pre', format: 'markedCode' },
      { selector: 'table', format: 'markedTable' },
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
      { selector: 'script', format: 'skip' },
      { selector: 'style', format: 'skip' },
      { selector: 'noscript', format: 'skip' },
      { selector: 'template', format: 'skip' },
    ],
    formatters: { markedHeading, markedCode, markedTable },
  })
  return cut(marked)
}

const markedHeading: FormatCallback = (elem, walk, builder, options) => {
  builder.openBlock({ leadingLineBreaks: 2 })
  builder.addInline(`${MARK}H${String(options['level'] ?? 1)}${MARK}`)
  walk(elem.children, builder)
  builder.closeBlock({ trailingLineBreaks: 2 })
}

const markedCode: FormatCallback = (elem, _walk, builder) => {
  builder.openBlock({ leadingLineBreaks: 2, isPre: true })
  builder.addLiteral(`${MARK}CODE\n${rawText(elem as DomNode).replace(/\n+$/, '')}\n${MARK}END`)
  builder.closeBlock({ trailingLineBreaks: 2 })
}

const markedTable: FormatCallback = (elem, _walk, builder) => {
  const rows = rowsOf(elem as DomNode)
  if (rows.length === 0) return
  const width = rows.reduce((w, r) => Math.max(w, r.length), 0) // no spread: a table may have a million rows
  const line = (cells: string[]) => `| ${Array.from({ length: width }, (_, i) => cells[i] ?? '').join(' | ')} |`
  const table = [line(rows[0]!), line(Array(width).fill('---')), ...rows.slice(1).map(line)].join('\n')
  builder.openBlock({ leadingLineBreaks: 2, isPre: true })
  builder.addLiteral(`${MARK}TABLE\n${table}\n${MARK}END`)
  builder.closeBlock({ trailingLineBreaks: 2 })
}

function rawText(node: DomNode): string {
  if (node.type === 'text') return node.data ?? ''
  if (node.type === 'tag' && node.name === 'br') return '\n'
  return (node.children ?? []).map(rawText).join('')
}

/** The rows of a table in order (through thead, tbody, tfoot), cells as one-line text. */
function rowsOf(node: DomNode): string[][] {
  const rows: string[][] = []
  const visit = (n: DomNode) => {
    if (n.name === 'tr') {
      const cells = (n.children ?? []).filter((c) => c.name === 'td' || c.name === 'th')
      rows.push(cells.map((c) => rawText(c).replace(/\s+/g, ' ').trim().replaceAll('|', '\\|')))
    } else if (n.name !== 'table' || n === node) (n.children ?? []).forEach(visit) // nested tables stay in their cell's text
  }
  visit(node)
  return rows
}

/** Cuts the marked text into blocks: marked regions whole, the rest into paragraphs. */
function cut(marked: string): Block[] {
  const blocks: Block[] = []
  const lines = marked.split('\n')
  let prose: string[] = []
  const endProse = () => {
    const text = prose.join('\n').trim()
    prose = []
    if (!text) return
    const isList = text.split('\n').every((l) => /^\s*(\*|\d+\.)\s/.test(l))
    blocks.push({ kind: isList ? 'list' : 'paragraph', text })
  }
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const heading = line.match(new RegExp(`^\\s*${MARK}H([1-6])${MARK}\\s*(.*)$`))
    if (heading) {
      endProse()
      const text = heading[2]!.trim()
      if (text) blocks.push({ kind: 'heading', level: Number(heading[1]), text })
    } else if (line.trim() === `${MARK}CODE` || line.trim() === `${MARK}TABLE`) {
      endProse()
      const body: string[] = []
      for (i++; i < lines.length && lines[i] !== `${MARK}END`; i++) body.push(lines[i]!)
      const text = body.join('\n')
      if (line.trim() === `${MARK}CODE`) blocks.push({ kind: 'code', text: '```\n' + text + '\n```' })
      else blocks.push({ kind: 'table', text })
    } else if (line.trim() === '') endProse()
    else prose.push(line)
  }
  endProse()
  return blocks
}
