/**
 * One entry for reading a document: bytes and what the client declared about them in, blocks
 * out, within the limits of `knowledge.readers` (limits.ts). Text formats are decoded as UTF-8
 * (a byte-order mark is dropped; invalid bytes become U+FFFD rather than failing the upload).
 *
 * This runs the reader on the calling thread: the gateway calls it through the reader pool
 * (reader-pool.ts), whose child processes run it off the event loop; tests and tools call it directly.
 */
import type { Block } from '../blocks.js'
import { formatOf, type DocumentFormat } from './format.js'
import { DEFAULT_READER_LIMITS, overLimit, utf8Bytes, type ReaderLimits } from './limits.js'
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
  limits: Partial<ReaderLimits> = {},
): Promise<{ format: DocumentFormat; blocks: Block[] }> {
  const all = { ...DEFAULT_READER_LIMITS, ...limits }
  const format = formatOf(doc)
  checkSourceSize(format, doc.bytes.length, all.maxTextBytes)
  // The readers and their parsers (~4 MB of heap, ~7 MB of RSS) load at the first document of their format, not at start.
  if (format === 'pdf') return { format, blocks: await (await import('./pdf.js')).readPdf(doc.bytes, all) }
  const text = new TextDecoder('utf-8').decode(doc.bytes) // drops a BOM by default
  if (format !== 'html') checkSourceSize(format, utf8Bytes(text), all.maxTextBytes)
  const blocks =
    format === 'markdown'
      ? (await import('./markdown.js')).readMarkdown(text, all.maxDepth)
      : format === 'html'
        ? (await import('./html.js')).readHtml(text, all.maxDepth)
        : readText(text)
  if (format === 'html') {
    const size = blocks.reduce((n, b) => n + utf8Bytes(b.text), 0)
    if (size > all.maxTextBytes) throw overLimit('maxTextBytes', all.maxTextBytes, `the HTML's text is ${size} bytes`)
  }
  return { format, blocks }
}

/**
 * A text or Markdown source is its text: one over `max_text_bytes` is refused before it is
 * decoded or parsed (a byte-order mark of 3 bytes is allowed for).
 */
export function checkSourceSize(format: DocumentFormat, bytes: number, maxTextBytes: number): void {
  if ((format === 'text' || format === 'markdown') && bytes > maxTextBytes + 3)
    throw overLimit('maxTextBytes', maxTextBytes, `the ${format === 'text' ? 'text' : 'Markdown'} is ${bytes} bytes`)
}
