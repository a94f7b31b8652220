/**
 * What a chat-upload file is, from its first bytes (images and audio) or, for documents, from
 * what the client declared (the knowledge base's readers decide, as for ingestion). The form
 * field says which kind the client means; the bytes must agree, else 415 naming the file.
 */
import { GatewayError } from '../../kernel/contract/index.js'
import { formatOf, type DocumentFormat } from '../../domains/query/knowledge/readers/format.js'

export type FileKind = 'image' | 'doc' | 'audio'

/** The form fields of the chat upload and the kind each carries. */
export const KIND_OF_FIELD: Readonly<Record<string, FileKind>> = { images: 'image', docs: 'doc', audios: 'audio' }

const ascii = (data: Buffer, from: number, to: number) => data.toString('latin1', from, to)

/** PNG, JPEG, WebP or GIF by magic bytes; undefined for anything else. */
export function imageType(data: Buffer): string | undefined {
  if (data.length >= 8 && data.readUInt32BE(0) === 0x89504e47 && data.readUInt32BE(4) === 0x0d0a1a0a) return 'image/png'
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'image/jpeg'
  if (data.length >= 12 && ascii(data, 0, 4) === 'RIFF' && ascii(data, 8, 12) === 'WEBP') return 'image/webp'
  if (data.length >= 6 && (ascii(data, 0, 6) === 'GIF87a' || ascii(data, 0, 6) === 'GIF89a')) return 'image/gif'
  return undefined
}

/** The formats the transcription route reads (spec 000: mp3, wav, flac, ogg/opus), by magic bytes. */
export function audioType(data: Buffer): string | undefined {
  if (data.length >= 12 && ascii(data, 0, 4) === 'RIFF' && ascii(data, 8, 12) === 'WAVE') return 'audio/wav'
  if (data.length >= 4 && ascii(data, 0, 4) === 'fLaC') return 'audio/flac'
  if (data.length >= 4 && ascii(data, 0, 4) === 'OggS') return 'audio/ogg'
  if (data.length >= 3 && ascii(data, 0, 3) === 'ID3') return 'audio/mpeg'
  // An MPEG audio frame header: 11 bits of sync, then a layer that is not "reserved".
  if (data.length >= 2 && data[0] === 0xff && (data[1]! & 0xe0) === 0xe0 && (data[1]! & 0x06) !== 0) return 'audio/mpeg'
  return undefined
}

const FORMAT_TYPES: Readonly<Record<DocumentFormat, string>> = {
  text: 'text/plain',
  markdown: 'text/markdown',
  html: 'text/html',
  pdf: 'application/pdf',
}

/**
 * A document's format: a PDF by its `%PDF-` signature whatever was declared (a part sent
 * without a type reads as text/plain), else the declared type, else the extension. A plain
 * `text/plain` gives way to an extension that says Markdown or HTML, for the same reason.
 */
export function docFormat(
  data: Buffer,
  name: string,
  declared: string | undefined,
): { format: DocumentFormat; contentType: string } {
  if (ascii(data, 0, 5) === '%PDF-') return { format: 'pdf', contentType: FORMAT_TYPES.pdf }
  const type = (declared ?? '').split(';')[0]!.trim().toLowerCase()
  let format: DocumentFormat
  try {
    format = type === 'text/plain' ? formatOf({ fileName: name }) : formatOf({ contentType: declared, fileName: name })
  } catch (err) {
    if (type === 'text/plain') format = 'text'
    else if (err instanceof GatewayError)
      throw new GatewayError(415, `file ${name} in docs: ${err.message}`, { code: 'invalid_request' })
    else throw err
  }
  return { format, contentType: FORMAT_TYPES[format] }
}
