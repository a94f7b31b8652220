/**
 * multipart-upload: reads a multipart/form-data body (routes declared `body: raw`) within a
 * hard limit, refused with 413 past it without buffering the excess. The text fields become
 * the request body, so the steps after it (`model` …) read `model` as from JSON; the file goes
 * to `ex.state.upload`. Fields, files, parts and sizes are counted against the route's limits as
 * the form is parsed: past one the answer is 413 with the limit named.
 */
import { GatewayError, definePlugin } from '../../kernel/contract/index.js'
import { tooLarge } from '../../kernel/contract/index.js'
import { configSchema } from './schema.js'
import { FormLimitError, isFormData, MultipartError, parseForm, type ParsedForm } from './multipart-parser.js'

export interface UploadedFile {
  /** The name the client gave the file (may be absent). */
  readonly filename?: string
  readonly contentType?: string
  readonly data: Buffer
}

/** One file of a form read with `file_fields`, and the field it came in. */
export interface FieldFile extends UploadedFile {
  readonly field: string
}

declare module '../../kernel/contract/index.js' {
  interface ExchangeState {
    upload?: {
      /** The file (with `file_fields`: the last of them). */
      file: UploadedFile
      /** With `file_fields`: every file of those fields, in the order sent. */
      files?: readonly FieldFile[]
      /** Text fields; a repeated name (`timestamp_granularities[]`) holds a list. */
      fields: Record<string, string | string[]>
    }
  }
}

function bad(message: string): GatewayError {
  return new GatewayError(400, message, { code: 'invalid_request' })
}

export default definePlugin({
  name: 'multipart-upload',
  config: configSchema,
  provides: ['upload'],
  setup(config) {
    const fileField = config.file_field
    const fileFields = config.file_fields
    const fileWords = fileFields ? fileFields.join(', ') : fileField
    const maxFile = config.max_file_bytes
    const limit = maxFile + config.form_allowance_bytes
    const limits = {
      fields: config.max_fields,
      fieldBytes: config.max_field_bytes,
      files: config.max_files,
      fileBytes: maxFile,
      parts: config.max_parts,
    }
    return {
      async request(ex, next) {
        if (!ex.incoming)
          throw new GatewayError(500, 'internal error', {
            cause: new Error('multipart-upload needs a route declared `body: raw`'),
          })
        const contentType = ex.incoming.contentType
        if (!contentType || !isFormData(contentType))
          throw bad(`the request must be multipart/form-data with a ${fileWords} field`)
        // Past the limit this throws 413 and lets the rest drain unread.
        const body = await ex.incoming.read(limit)
        let form: ParsedForm
        try {
          form = await parseForm(body, contentType, fileFields ?? fileField, limits)
        } catch (err) {
          if (err instanceof FormLimitError)
            throw err.limit === 'fileBytes'
              ? tooLarge()
              : new GatewayError(413, err.message, { code: 'body_too_large' })
          if (err instanceof MultipartError) throw bad(`invalid multipart body: ${err.message}`)
          throw err
        }
        const byName = new Map<string, string | string[]>()
        for (const [name, value] of form.fields) {
          const prior = byName.get(name)
          if (prior === undefined) byName.set(name, value)
          else if (Array.isArray(prior)) prior.push(value)
          else byName.set(name, [prior, value])
        }
        // fromEntries defines own properties, so a field named `__proto__` stays a field.
        const fields: Record<string, string | string[]> = Object.fromEntries(byName)
        // The last file of the name wins, as the last value of a repeated field does.
        const part = form.files.at(-1)
        const file: UploadedFile | undefined = part && {
          filename: part.filename,
          contentType: part.contentType,
          data: part.data,
        }
        if (fileFields) {
          // Several files: an empty one is the next step's to name (it knows what each field means).
          const stray = form.skipped[0]
          if (stray)
            throw bad(
              `file ${stray.filename ?? '(unnamed)'} is in field ${stray.name}, which is not one of ${fileWords}`,
            )
          if (!file) throw bad(`a file is required in ${fileFields.length > 1 ? `one of ${fileWords}` : fileWords}`)
          ex.body = fields
          ex.state.upload = {
            file,
            files: form.files.map((f) => ({
              field: f.name,
              filename: f.filename,
              contentType: f.contentType,
              data: f.data,
            })),
            fields,
          }
          return next()
        }
        if (!file) throw bad(`${fileField} is required`)
        if (file.data.length === 0) throw bad(`${fileField} is empty`)
        ex.body = fields
        ex.state.upload = { file, fields }
        await next()
      },
    }
  },
})
