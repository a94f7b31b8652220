/**
 * The chat upload's checks, all made before any file is read, transcribed or stored: how many
 * files (400), how big each and all together (413), names (each file needs one, unique within
 * the upload, since a query lists files by name), and whether the bytes are of the kind the
 * field says (415). Messages name the file and the server.yaml setting.
 */
import { GatewayError } from '../../kernel/contract/index.js'
import type { UploadLimits } from '../../domains/query/query-settings.js'
import type { DocumentFormat } from '../../domains/query/knowledge/readers/format.js'
import { audioType, docFormat, imageType, KIND_OF_FIELD, type FileKind } from './file-kind.js'

export interface FormFile {
  readonly field: string
  readonly filename?: string
  readonly contentType?: string
  readonly data: Buffer
}

export interface CheckedFile {
  readonly name: string
  readonly kind: FileKind
  /** From the bytes (images, audio) or the document's format. */
  readonly contentType: string
  readonly format?: DocumentFormat
  readonly data: Buffer
}

const bad = (message: string) => new GatewayError(400, message, { code: 'invalid_request' })
const tooBig = (message: string) => new GatewayError(413, message, { code: 'body_too_large' })
const unsupported = (message: string) => new GatewayError(415, message, { code: 'invalid_request' })

const MAX_NAME = 255

export function checkUpload(files: readonly FormFile[], limits: UploadLimits): CheckedFile[] {
  if (files.length > limits.maxFiles)
    throw bad(`too many files: ${files.length} sent, at most ${limits.maxFiles} per upload (query.uploads.max_files)`)
  const names = new Set<string>()
  let total = 0
  for (const f of files) {
    const kind = KIND_OF_FIELD[f.field]
    if (!kind)
      throw bad(`file ${f.filename ?? '(unnamed)'} is in field ${f.field}, which is not one of images, docs, audios`)
    const name = f.filename?.trim()
    if (!name) throw bad(`a file in ${f.field} has no file name; a query names its files by it`)
    if (name.length > MAX_NAME) throw bad(`file name ${name.slice(0, 40)}… is longer than ${MAX_NAME} characters`)
    if (names.has(name)) throw bad(`file name ${name} is sent twice; names must be unique within an upload`)
    names.add(name)
    if (f.data.length === 0) throw bad(`file ${name} is empty`)
    if (f.data.length > limits.maxFileBytes)
      throw tooBig(
        `file ${name} is ${f.data.length} bytes; at most ${limits.maxFileBytes} per file (query.uploads.max_file_bytes)`,
      )
    total += f.data.length
  }
  if (total > limits.maxTotalBytes)
    throw tooBig(
      `the files add up to ${total} bytes; at most ${limits.maxTotalBytes} per upload (query.uploads.max_total_bytes)`,
    )
  return files.map((f) => {
    const name = f.filename!.trim()
    const kind = KIND_OF_FIELD[f.field]!
    if (kind === 'image') {
      const type = imageType(f.data)
      if (!type) throw unsupported(`file ${name} in images is not a PNG, JPEG, WebP or GIF image`)
      return { name, kind, contentType: type, data: f.data }
    }
    if (kind === 'audio') {
      const type = audioType(f.data)
      if (!type)
        throw unsupported(`file ${name} in audios is not audio the transcription reads (WAV, MP3, FLAC or Ogg)`)
      return { name, kind, contentType: type, data: f.data }
    }
    const { format, contentType } = docFormat(f.data, name, f.contentType)
    return { name, kind, contentType, format, data: f.data }
  })
}
