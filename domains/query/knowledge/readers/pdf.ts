/**
 * PDF text by page through unpdf (a serverless build of PDF.js). PDFs come from users, so the
 * page count is checked before any page is read and the whole extraction runs under a time
 * limit (PDF.js runs on this thread but yields between its steps, so the timer is checked
 * between them; one pathological step is not interrupted); past either, the document is refused (400) rather than read in part, so a
 * collection never holds half a document that looks whole. Scanned pages without a text layer
 * yield nothing: there is no OCR.
 */
import { extractText, getDocumentProxy } from 'unpdf'
import { GatewayError } from '../../../../kernel/contract/index.js'
import type { Block } from '../blocks.js'
import { readText } from './text.js'

export interface PdfLimits {
  /** Pages a PDF may have (`knowledge.pdf.max_pages`). */
  readonly maxPages: number
  /** Milliseconds the text extraction may take (`knowledge.pdf.timeout_ms`). */
  readonly timeoutMs: number
}

export const DEFAULT_PDF_LIMITS: PdfLimits = { maxPages: 2000, timeoutMs: 60_000 }

export async function readPdf(bytes: Uint8Array, limits: PdfLimits = DEFAULT_PDF_LIMITS): Promise<Block[]> {
  // PDF.js may detach the buffer it is given: hand it a copy, never the caller's bytes.
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>
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
    if (pdf.numPages > limits.maxPages) {
      throw new GatewayError(
        400,
        `the PDF has ${pdf.numPages} pages; at most ${limits.maxPages} are read (knowledge.pdf.max_pages)`,
        { code: 'invalid_request' },
      )
    }
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new GatewayError(
              400,
              `the PDF took longer than ${limits.timeoutMs} ms to read (knowledge.pdf.timeout_ms)`,
              { code: 'invalid_request' },
            ),
          ),
        limits.timeoutMs,
      )
    })
    const { text } = await Promise.race([extractText(pdf, { mergePages: false }), timeout])
    return text.flatMap((page, i) => readText(page, i + 1))
  } finally {
    clearTimeout(timer)
    // Frees PDF.js's resources; on a timeout this also stops the extraction still under way.
    void pdf.destroy()
  }
}
