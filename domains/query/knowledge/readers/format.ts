/**
 * Which reader a document needs: its declared content type first, then its file extension.
 * A format we cannot read is a 415 with the types we can; nothing is guessed from content.
 */
import { GatewayError } from '../../../../kernel/contract/index.js'

export type DocumentFormat = 'text' | 'markdown' | 'html' | 'pdf'

const BY_TYPE: Readonly<Record<string, DocumentFormat>> = {
  'text/plain': 'text',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'application/pdf': 'pdf',
}

const BY_EXTENSION: Readonly<Record<string, DocumentFormat>> = {
  txt: 'text',
  text: 'text',
  md: 'markdown',
  markdown: 'markdown',
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  pdf: 'pdf',
}

/** Content types that say nothing about the format: fall through to the extension. */
const VAGUE = new Set(['', 'application/octet-stream', 'binary/octet-stream'])

export const SUPPORTED_TYPES = Object.keys(BY_TYPE)

export function formatOf(declared: { contentType?: string; fileName?: string }): DocumentFormat {
  const type = (declared.contentType ?? '').split(';')[0]!.trim().toLowerCase()
  if (!VAGUE.has(type)) {
    const format = BY_TYPE[type]
    if (format) return format
    throw unsupported(`content type ${type} is not a document format the knowledge base reads`)
  }
  const name = declared.fileName ?? ''
  const dot = name.lastIndexOf('.')
  const format = dot >= 0 ? BY_EXTENSION[name.slice(dot + 1).toLowerCase()] : undefined
  if (format) return format
  throw unsupported(
    name
      ? `cannot tell the format of ${JSON.stringify(name)} from its extension`
      : 'the document has neither a content type nor a file name',
  )
}

function unsupported(why: string): GatewayError {
  return new GatewayError(415, `${why}; supported: ${SUPPORTED_TYPES.join(', ')} (or .txt, .md, .html, .pdf)`, {
    code: 'invalid_request',
  })
}
