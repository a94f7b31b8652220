/**
 * base64-upload: the JSON twin of `multipart-upload`, for in-process callers of the
 * transcription and translation routes (the Query service's audio body type). The body's
 * `file_base64` (plain base64 or a data URL) becomes the upload, and its text fields the form's
 * fields, so the `transcription` step after it works exactly as behind a multipart upload.
 */
import { definePlugin } from '../../kernel/plugin.js'
import { GatewayError } from '../../kernel/errors.js'
import { tooLarge } from '../../kernel/body.js'
import { decodeBase64Payload } from '../../protocols/http/base64-payload.js'
import type { AudioFileRequest } from '../../schemas/audio-file-request.schema.js'
import { configSchema } from './schema.js'

/** Body fields that go to the model server as form fields. */
const FORM_FIELDS = ['language', 'prompt', 'response_format', 'temperature'] as const

function bad(message: string): GatewayError {
  return new GatewayError(400, message, { code: 'invalid_request' })
}

export default definePlugin({
  name: 'base64-upload',
  config: configSchema,
  provides: ['upload'],
  setup(config) {
    const maxFile = config.max_file_bytes ?? 67108864
    const task = config.task ?? 'transcribe'
    return {
      async request(ex, next) {
        const body = ex.body as AudioFileRequest
        if (body.task !== undefined && body.task !== task) throw bad(`this route does ${task}, not ${body.task}`)
        // Three bytes per four characters: too large is known before decoding.
        if ((body.file_base64.length / 4) * 3 > maxFile + 2) throw tooLarge()
        const payload = decodeBase64Payload(body.file_base64)
        if (!payload) throw bad('file_base64 is not valid base64')
        if (payload.data.length === 0) throw bad('file_base64 is empty')
        if (payload.data.length > maxFile) throw tooLarge()
        const fields: Record<string, string> = {}
        for (const name of FORM_FIELDS) if (body[name] !== undefined) fields[name] = String(body[name])
        ex.state.upload = {
          file: { data: payload.data, filename: body.filename ?? 'audio', contentType: body.content_type ?? payload.contentType },
          fields,
        }
        await next()
      },
    }
  },
})
