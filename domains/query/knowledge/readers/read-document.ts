/**
 * One entry for the ingestion API: bytes and what the client declared about them in, blocks
 * out. Text formats are decoded as UTF-8 (a byte-order mark is dropped; invalid bytes become
 * U+FFFD rather than failing the upload).
 */
import type { Block } from '../blocks.js'
import { formatOf, type DocumentFormat } from './format.js'
import { DEFAULT_PDF_LIMITS, type PdfLimits } from './pdf.js'
import { readText } from './text.js'

export interface DocumentBytes {
  readonly bytes: Uint8Array
  /** The declared content type (`Content-Type` of a multipart part or of a JSON field). */
  readonly contentType?: string
  /** The file name, for its extension when the content type says nothing. */
  readonly fileName?: string
}

export async function readDocument(
  doc: DocumentBytes,
  pdfLimits: PdfLimits = DEFAULT_PDF_LIMITS,
): Promise<{ format: DocumentFormat; blocks: Block[] }> {
  const format = formatOf(doc)
  // The readers and their parsers (~4 MB of heap, ~7 MB of RSS) load at the first document of their format, not at start.
  if (format === 'pdf') return { format, blocks: await (await import('./pdf.js')).readPdf(doc.bytes, pdfLimits) }
  const text = new TextDecoder('utf-8').decode(doc.bytes) // drops a BOM by default
  const blocks =
    format === 'markdown'
      ? (await import('./markdown.js')).readMarkdown(text)
      : format === 'html'
        ? (await import('./html.js')).readHtml(text)
        : readText(text)
  return { format, blocks }
}
