/**
 * multipart/form-data, parsed by busboy over a body already read whole (within its limit). busboy
 * scans for boundaries once, in linear time whatever the parts (a hand parser that copied its
 * list per repeated field took 36 s of event loop over 50,000 fields), and counts fields, files,
 * parts and sizes as it goes, so a limit is refused at the part that passes it. The body is one
 * chunk, so a file's data is normally a single view into it, never a copy.
 */
import busboy from 'busboy'

export interface FormFile {
  readonly name: string
  readonly filename?: string
  readonly contentType?: string
  readonly data: Buffer
}

export interface ParsedForm {
  /** Text fields in order; a name may repeat. */
  readonly fields: readonly (readonly [name: string, value: string])[]
  /** The file parts of the names asked for, in order (others are skipped unread). */
  readonly files: readonly FormFile[]
  /** File parts of other names, skipped unread: their field and file name. */
  readonly skipped: readonly { readonly name: string; readonly filename?: string }[]
}

export interface FormLimits {
  /** Text fields at most. */
  readonly fields: number
  /** Bytes of one text field's value at most. */
  readonly fieldBytes: number
  /** File parts at most (any name). */
  readonly files: number
  /** Bytes of one file at most. */
  readonly fileBytes: number
  /** Parts of any kind at most. */
  readonly parts: number
}

/** The body is not a well-formed form: 400. */
export class MultipartError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'MultipartError'
  }
}

/** The form passes one of its limits: 413. `limit` says which. */
export class FormLimitError extends Error {
  constructor(
    readonly limit: keyof FormLimits,
    message: string,
  ) {
    super(message)
    this.name = 'FormLimitError'
  }
}

/** Whether a content type is `multipart/form-data` with a boundary. */
export function isFormData(contentType: string | undefined): boolean {
  return !!contentType && /^multipart\/form-data\s*;/i.test(contentType) && /;\s*boundary=/i.test(contentType)
}

export function parseForm(
  body: Buffer,
  contentType: string,
  fileFields: string | readonly string[],
  limits: FormLimits,
): Promise<ParsedForm> {
  const wanted = new Set(typeof fileFields === 'string' ? [fileFields] : fileFields)
  return new Promise((resolve, reject) => {
    const fields: [string, string][] = []
    const files: FormFile[] = []
    const skipped: { name: string; filename?: string }[] = []
    let failed = false
    let parser: busboy.Busboy
    const fail = (err: Error) => {
      if (failed) return
      failed = true
      // Stop at the part that broke the rules: the rest of the body is not looked at.
      parser.removeAllListeners()
      parser.on('error', () => undefined)
      parser.destroy()
      reject(err)
    }
    try {
      // busboy counts "exactly at the limit" as reached, so each is given one more than allowed:
      // its event then means one too many.
      parser = busboy({
        headers: { 'content-type': contentType },
        defParamCharset: 'utf8',
        limits: {
          fields: limits.fields,
          fieldSize: limits.fieldBytes + 1,
          files: limits.files,
          fileSize: limits.fileBytes + 1,
          parts: limits.parts + 1,
        },
      })
    } catch (err) {
      reject(new MultipartError((err as Error).message))
      return
    }
    parser.on('field', (name, value, info) => {
      if (name === undefined) return fail(new MultipartError('a multipart part has no name'))
      if (info.valueTruncated)
        return fail(new FormLimitError('fieldBytes', `form field ${name} is longer than ${limits.fieldBytes} bytes`))
      fields.push([name, value])
    })
    parser.on('file', (name, stream, info) => {
      // A stop part-way destroys the file being read with an error of its own; the form's is reported.
      stream.on('error', () => undefined)
      if (!wanted.has(name)) {
        skipped.push({ name, filename: info.filename })
        return void stream.resume()
      }
      const chunks: Buffer[] = []
      let size = 0
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length
        chunks.push(chunk)
      })
      stream.on('limit', () =>
        fail(new FormLimitError('fileBytes', `file ${name} is larger than ${limits.fileBytes} bytes`)),
      )
      stream.on('end', () => {
        files.push({
          name,
          filename: info.filename,
          contentType: info.mimeType,
          data: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size),
        })
      })
    })
    parser.on('fieldsLimit', () =>
      fail(new FormLimitError('fields', `too many form fields (at most ${limits.fields})`)),
    )
    parser.on('filesLimit', () =>
      fail(new FormLimitError('files', `too many files in the form (at most ${limits.files})`)),
    )
    parser.on('partsLimit', () =>
      fail(new FormLimitError('parts', `too many parts in the form (at most ${limits.parts})`)),
    )
    parser.on('error', (err: Error) => fail(new MultipartError(err.message)))
    parser.on('close', () => {
      if (!failed) resolve({ fields, files, skipped })
    })
    parser.end(body)
  })
}
