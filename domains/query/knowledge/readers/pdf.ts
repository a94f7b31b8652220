/**
 * PDF text by page through unpdf (a serverless build of PDF.js). PDFs come from users, so
 * before any page is read the page count is checked and the compressed streams are measured
 * inflated (pdf-streams.ts); pages are then read one after the other and the text is counted
 * as it grows. Past any limit, or past the time limit, the document is refused rather than read
 * in part, so a collection never holds half a document that looks whole. This runs in a reader
 * process (reader-pool.ts), which is killed if one pathological step outlasts the deadline.
 * Scanned pages without a text layer yield nothing: there is no OCR.
 */
import { getDocumentProxy } from 'unpdf'
import { GatewayError } from '../../../../kernel/contract/index.js'
import type { Block } from '../blocks.js'
import { DEFAULT_READER_LIMITS, overLimit, utf8Bytes, type ReaderLimits } from './limits.js'
import { inflatedBytes } from './pdf-streams.js'
import { readText } from './text.js'

export type PdfLimits = Pick<ReaderLimits, 'maxPages' | 'timeoutMs' | 'maxTextBytes' | 'maxInflatedBytes'>

export const DEFAULT_PDF_LIMITS: PdfLimits = DEFAULT_READER_LIMITS

type Pdf = Awaited<ReturnType<typeof getDocumentProxy>>

export async function readPdf(bytes: Uint8Array, limits: Partial<PdfLimits> = {}): Promise<Block[]> {
  const { maxPages, timeoutMs, maxTextBytes, maxInflatedBytes } = { ...DEFAULT_PDF_LIMITS, ...limits }
  const inflated = await inflatedBytes(bytes, maxInflatedBytes)
  if (inflated > maxInflatedBytes)
    throw overLimit('maxInflatedBytes', maxInflatedBytes, `the PDF's streams inflate to more than ${inflated} bytes`)
  // PDF.js may detach the buffer it is given: hand it a copy, never the caller's bytes.
  let pdf: Pdf
  try {
    pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 }) // errors only: no warnings on stdout
  } catch (err) {
    throw new GatewayError(400, `the PDF could not be read: ${err instanceof Error ? err.message : String(err)}`, {
      code: 'invalid_request',
      cause: err,
    })
  }
  let timer: NodeJS.Timeout | undefined
  try {
    if (pdf.numPages > maxPages)
      throw overLimit('maxPages', maxPages, `the PDF has ${pdf.numPages} pages, more than are read`)
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(overLimit('timeoutMs', timeoutMs, `the PDF took longer than ${timeoutMs} ms to read`)),
        timeoutMs,
      )
    })
    const pages = await Promise.race([pageTexts(pdf, maxTextBytes), timeout])
    return pages.flatMap((page, i) => readText(page, i + 1))
  } finally {
    clearTimeout(timer)
    // Frees PDF.js's resources; on a timeout this also stops the extraction still under way.
    void pdf.destroy()
  }
}

/** Each page's text as unpdf's extractText gives it, read in order and counted as it grows. */
async function pageTexts(pdf: Pdf, maxTextBytes: number): Promise<string[]> {
  const texts: string[] = []
  let size = 0
  for (let n = 1; n <= pdf.numPages; n++) {
    const page = await pdf.getPage(n)
    const content = await page.getTextContent()
    const text = content.items
      .filter((item) => 'str' in item && item.str != null)
      .map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : ''))
      .join('')
    page.cleanup()
    size += utf8Bytes(text)
    if (size > maxTextBytes)
      throw overLimit('maxTextBytes', maxTextBytes, `the PDF's text reaches ${size} bytes by page ${n}`)
    texts.push(text)
  }
  return texts
}
