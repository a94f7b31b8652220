/**
 * multipart/form-data, as a transcription server receives it: text fields and one file. The
 * body is already read whole; parts are views into it.
 */
import { SimError } from './api-error.js'

export interface FormUpload {
  fields: Map<string, string[]>
  file: { filename: string | undefined; data: Buffer } | undefined
}

export function parseForm(contentType: string | undefined, body: Buffer, fileField = 'file'): FormUpload {
  const m = /^multipart\/form-data.*;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '')
  if (!m) throw new SimError(400, 'Expected a multipart/form-data body.')
  const boundary = m[1] ?? m[2]!
  const between = Buffer.from(`\r\n--${boundary}`)
  const first = Buffer.from(`--${boundary}`)
  const upload: FormUpload = { fields: new Map(), file: undefined }
  let at = body.indexOf(first)
  if (at === -1) throw new SimError(400, 'Malformed multipart body: no boundary.')
  at += first.length
  while (!(body[at] === 0x2d && body[at + 1] === 0x2d)) {
    const headerEnd = body.indexOf('\r\n\r\n', at)
    if (headerEnd === -1) throw new SimError(400, 'Malformed multipart body: a part has no headers.')
    const headers = body.toString('utf8', at, headerEnd)
    const end = body.indexOf(between, headerEnd + 4)
    if (end === -1) throw new SimError(400, 'Malformed multipart body: no closing boundary.')
    const name = /name="([^"]*)"/i.exec(headers)?.[1]
    const filename = /filename="([^"]*)"/i.exec(headers)?.[1]
    const data = body.subarray(headerEnd + 4, end)
    if (name === fileField && filename !== undefined) upload.file = { filename, data }
    else if (name !== undefined) upload.fields.set(name, [...(upload.fields.get(name) ?? []), data.toString('utf8')])
    at = end + between.length
  }
  return upload
}
