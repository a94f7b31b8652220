/**
 * json-upload: the in-process twin of `multipart-upload`. A plugin that calls a route built for
 * a multipart form (the transcription) through kernel.call sends JSON instead, the file as
 * base64 (schemas/audio-file-request); this step decodes it into `ex.state.upload` as
 * multipart-upload would, so the steps after it (budget's demand, transcription) run unchanged.
 */
import { GatewayError, definePlugin } from '../../kernel/contract/index.js'
import { tooLarge } from '../../kernel/contract/index.js'
import type { AudioFileRequest } from '../../schemas/audio-file-request.schema.js'
import { configSchema } from './schema.js'

/** The fields of the form the file would have come with (the file itself and the model excepted). */
const FORM_FIELDS = ['language', 'prompt', 'response_format'] as const

export default definePlugin({
  name: 'json-upload',
  config: configSchema,
  provides: ['upload'],
  setup(config) {
    const maxFile = config.max_file_bytes
    return {
      async request(ex, next) {
        const body = ex.body as AudioFileRequest
        // Base64 is 4 characters per 3 bytes: refuse what cannot fit before decoding it.
        if (Math.floor((body.file_base64.length * 3) / 4) - 2 > maxFile) throw tooLarge()
        const data = Buffer.from(body.file_base64, 'base64')
        if (data.length === 0) throw new GatewayError(400, 'file_base64 is empty', { code: 'invalid_request' })
        if (data.length > maxFile) throw tooLarge()
        const fields: Record<string, string> = {}
        for (const name of FORM_FIELDS) {
          const v = body[name]
          if (v !== undefined) fields[name] = v
        }
        ex.state.upload = { file: { filename: body.filename, contentType: body.content_type, data }, fields }
        await next()
      },
    }
  },
})
