/**
 * multipart/form-data, as a transcription server receives it: text fields and one file, parsed by
 * busboy (linear in the body, whatever the parts) within the limits of Starlette, which vLLM's
 * and speaches' FastAPI servers parse forms with: 1,000 fields, 1,000 files, 1 MiB per field;
 * past one, Starlette's 400 and message.
 */
import busboy from 'busboy'
import { SimError } from './api-error.js'

export interface FormUpload {
  fields: Map<string, string[]>
  file: { filename: string | undefined; data: Buffer } | undefined
}

const maxFields = 1000
const maxFiles = 1000
const maxFieldBytes = 1024 * 1024

export function parseForm(contentType: string | undefined, body: Buffer, fileField = 'file'): Promise<FormUpload> {
  if (!contentType || !/^multipart\/form-data\s*;/i.test(contentType))
    return Promise.reject(new SimError(400, 'Expected a multipart/form-data body.'))
  return new Promise((resolve, reject) => {
    const upload: FormUpload = { fields: new Map(), file: undefined }
    let failed = false
    let parser: busboy.Busboy
    const fail = (err: SimError) => {
      if (failed) return
      failed = true
      parser.removeAllListeners()
      parser.on('error', () => undefined)
      parser.destroy()
      reject(err)
    }
    try {
      // One more than allowed: busboy reports a limit when it is reached, Starlette when it is passed.
      parser = busboy({
        headers: { 'content-type': contentType },
        defParamCharset: 'utf8',
        limits: { fields: maxFields, files: maxFiles, fieldSize: maxFieldBytes + 1 },
      })
    } catch (err) {
      reject(new SimError(400, `Malformed multipart body: ${(err as Error).message}.`))
      return
    }
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated)
        return fail(new SimError(400, `Part exceeded maximum size of ${maxFieldBytes / 1024}KB.`))
      const values = upload.fields.get(name)
      if (values) values.push(value)
      else upload.fields.set(name, [value])
    })
    parser.on('file', (name, stream, info) => {
      stream.on('error', () => undefined)
      if (name !== fileField) return void stream.resume()
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on(
        'end',
        () =>
          (upload.file = { filename: info.filename, data: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) }),
      )
    })
    parser.on('fieldsLimit', () =>
      fail(new SimError(400, `Too many fields. Maximum number of fields is ${maxFields}.`)),
    )
    parser.on('filesLimit', () => fail(new SimError(400, `Too many files. Maximum number of files is ${maxFiles}.`)))
    parser.on('error', (err: Error) => fail(new SimError(400, `Malformed multipart body: ${err.message}.`)))
    parser.on('close', () => {
      if (!failed) resolve(upload)
    })
    parser.end(body)
  })
}
