/**
 * Hostile documents of issue 31, made at run time (nothing binary is committed) and small on
 * disk where the format allows: PDFs whose streams inflate far beyond their size are deflated
 * from repeated bytes chunk by chunk, never held inflated. Used by the e2e test at reduced sizes
 * and by bench/hostile-documents.ts at the issue's sizes.
 */
import zlib from 'node:zlib'

/** A Markdown table of `cols` columns and `rows` rows of one-letter cells. */
export function markdownTable(cols: number, rows: number): string {
  const line = `|${' a |'.repeat(cols)}\n`
  return `|${' h |'.repeat(cols)}\n|${' --- |'.repeat(cols)}\n${line.repeat(rows)}`
}

/** Runs of backticks of growing length, none closed by a run of the same length: code spans searched for, never found. */
export function backtickRuns(bytes: number): string {
  const out: string[] = []
  let size = 0
  for (let n = 1; size < bytes; n++) {
    const part = `${'`'.repeat(n)}a `
    out.push(part)
    size += part.length
  }
  return out.join('')
}

/** Plain text of short words, in paragraphs of ~1 KB. */
export function plainText(bytes: number): string {
  const paragraph = `${'harbour tide pilot basin '.repeat(40)}\n\n`
  return paragraph.repeat(Math.ceil(bytes / paragraph.length)).slice(0, bytes)
}

/** A list nested `depth` levels on one line (`- - - … x`). */
export const nestedList = (depth: number): string => `${'- '.repeat(depth)}x\n`

/** `n` emphasis openers that no closer matches. */
export const emphasisOpeners = (n: number): string => `${'*a'.repeat(n)}\n`

/** `depth` block quotes nested on one line. */
export const nestedBlockquotes = (depth: number): string => `${'> '.repeat(depth)}x\n`

/** `depth` nested divs. */
export const nestedDivs = (depth: number): string =>
  `<html><body>${'<div>'.repeat(depth)}x${'</div>'.repeat(depth)}</body></html>`

/** A table of `n` rows, each a paragraph in a cell. */
export const tableParagraphs = (n: number): string =>
  `<html><body><table>${'<tr><td><p>x</p></td></tr>'.repeat(n)}</table></body></html>`

/** A PDF of the given pages (content streams, raw or already deflated) with Helvetica, xref and all. */
export function pdfOf(pages: Array<{ content: Buffer; deflated?: boolean }>): Buffer {
  const objects: Buffer[] = []
  const add = (body: string | Buffer) => {
    objects.push(typeof body === 'string' ? Buffer.from(body, 'latin1') : body)
    return objects.length
  }
  const catalog = add('')
  const pagesObj = add('')
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>')
  const kids: number[] = []
  for (const page of pages) {
    const filter = page.deflated ? ' /Filter /FlateDecode' : ''
    const stream = add(
      Buffer.concat([
        Buffer.from(`<< /Length ${page.content.length}${filter} >>\nstream\n`, 'latin1'),
        page.content,
        Buffer.from('\nendstream', 'latin1'),
      ]),
    )
    kids.push(
      add(
        `<< /Type /Page /Parent ${pagesObj} 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${stream} 0 R >>`,
      ),
    )
  }
  objects[catalog - 1] = Buffer.from(`<< /Type /Catalog /Pages ${pagesObj} 0 R >>`, 'latin1')
  objects[pagesObj - 1] = Buffer.from(
    `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`,
    'latin1',
  )
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')]
  let offset = parts[0]!.length
  const offsets: number[] = []
  objects.forEach((body, i) => {
    offsets.push(offset)
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')])
    parts.push(obj)
    offset += obj.length
  })
  const xref = [
    'xref',
    `0 ${objects.length + 1}`,
    '0000000000 65535 f ',
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `),
    'trailer',
    `<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>`,
    'startxref',
    String(offset),
    '%%EOF',
  ].join('\n')
  parts.push(Buffer.from(`${xref}\n`, 'latin1'))
  return Buffer.concat(parts)
}

/** One page whose content stream is one line of text followed by `inflated` bytes of spaces. */
export async function inflatingPdf(inflated: number): Promise<Buffer> {
  const text = Buffer.from('BT /F1 12 Tf 72 720 Td (inflated page) Tj ET\n', 'latin1')
  return pdfOf([{ content: await deflatedAfter(text, inflated), deflated: true }])
}

/** `head` then `size` spaces, deflated as one zlib stream, chunk by chunk. */
export async function deflatedAfter(head: Buffer, size: number): Promise<Buffer> {
  const deflate = zlib.createDeflate({ level: 9 })
  const out: Buffer[] = []
  deflate.on('data', (c: Buffer) => out.push(c))
  const done = new Promise<void>((resolve, reject) => {
    deflate.on('end', resolve)
    deflate.on('error', reject)
  })
  deflate.write(head)
  const chunk = Buffer.alloc(Math.min(size, 1 << 20), 0x20)
  for (let left = size; left > 0; left -= chunk.length) {
    const piece = left >= chunk.length ? chunk : chunk.subarray(0, left)
    if (!deflate.write(piece)) await new Promise((r) => deflate.once('drain', r))
  }
  deflate.end()
  await done
  return Buffer.concat(out)
}

/** `pages` pages, each with about `bytesPerPage` bytes of text in lines of words. */
export function manyPagesPdf(pages: number, bytesPerPage: number): Buffer {
  const lines = Math.max(1, Math.round(bytesPerPage / 80))
  const line = 'harbour tide pilot basin harbour tide pilot basin harbour tide pilot basin harb'
  const ops = ['BT /F1 8 Tf 20 830 Td 9 TL']
  for (let i = 0; i < lines; i++) ops.push(`(${line}) '`)
  ops.push('ET')
  const content = Buffer.from(ops.join('\n'), 'latin1')
  return pdfOf(Array.from({ length: pages }, () => ({ content })))
}
