/**
 * multipart-upload: reads a multipart/form-data body (routes declared `body: raw`) within a
 * hard limit, refused with 413 past it without buffering the excess. The text fields become
 * the request body, so the steps after it (`model` …) read `model` as from JSON; the file goes
 * to `ex.state.upload`.
 */
import { definePlugin } from '../../kernel/plugin.js'
import { GatewayError } from '../../kernel/errors.js'
import { tooLarge } from '../../kernel/body.js'
import { configSchema } from './schema.js'
import { boundaryOf, MultipartError, parseMultipart } from './multipart-parser.js'

export interface UploadedFile {
  /** The name the client gave the file (may be absent). */
  readonly filename?: string
  readonly contentType?: string
  readonly data: Buffer
}

declare module '../../kernel/exchange.js' {
  interface ExchangeState {
    upload?: {
      file: UploadedFile
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
    const fileField = config.file_field ?? 'file'
    const maxFile = config.max_file_bytes ?? 67108864
    const limit = maxFile + (config.form_allowance_bytes ?? 1048576)
    return {
      async request(ex, next) {
        if (!ex.incoming) throw new GatewayError(500, 'internal error', { cause: new Error('multipart-upload needs a route declared `body: raw`') })
        const boundary = boundaryOf(ex.incoming.contentType)
        if (!boundary) throw bad(`the request must be multipart/form-data with a ${fileField} field`)
        // Past the limit this throws 413 and lets the rest drain unread.
        const body = await ex.incoming.read(limit)
        let parts
        try {
          parts = parseMultipart(body, boundary)
        } catch (err) {
          throw bad(`invalid multipart body: ${(err as MultipartError).message}`)
        }
        const fields: Record<string, string | string[]> = {}
        let file: UploadedFile | undefined
        for (const part of parts) {
          if (part.name === fileField) {
            file = { filename: part.filename, contentType: part.contentType, data: part.data }
            continue
          }
          if (part.filename !== undefined) continue // other files are not read
          const value = part.data.toString('utf8')
          const prior = fields[part.name]
          fields[part.name] = prior === undefined ? value : Array.isArray(prior) ? [...prior, value] : [prior, value]
        }
        if (!file) throw bad(`${fileField} is required`)
        if (file.data.length > maxFile) throw tooLarge()
        if (file.data.length === 0) throw bad(`${fileField} is empty`)
        ex.body = fields
        ex.state.upload = { file, fields }
        await next()
      },
    }
  },
})
