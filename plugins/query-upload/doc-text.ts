/**
 * A document's text for the prompt: the knowledge base's readers (PDF, text, Markdown, HTML)
 * give blocks; they are joined in reading order, headings in Markdown style, and each PDF page
 * opens with a `[page N]` line so that the model (and the user) can cite pages.
 */
import { readDocument } from '../../domains/query/knowledge/readers/read-document.js'
import type { PdfLimits } from '../../domains/query/knowledge/readers/pdf.js'
import type { DocumentFormat } from '../../domains/query/knowledge/readers/format.js'

export async function docText(
  data: Buffer,
  format: DocumentFormat,
  contentType: string,
  pdfLimits: PdfLimits,
): Promise<string> {
  const { blocks } = await readDocument({ bytes: data, contentType, fileName: `document.${format}` }, pdfLimits)
  const out: string[] = []
  let page: number | undefined
  for (const b of blocks) {
    if (b.pageNumber !== undefined && b.pageNumber !== page) {
      page = b.pageNumber
      out.push(`[page ${page}]`)
    }
    out.push(b.kind === 'heading' ? `${'#'.repeat(b.level ?? 1)} ${b.text}` : b.text)
  }
  return out.join('\n\n')
}
