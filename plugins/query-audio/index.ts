/**
 * query-audio: the Query service's `audio` body type (spec 001, rule 2): base64 audio in, its
 * transcript (or English translation) out, in the query response envelope. The audio goes to
 * the gateway's transcription or translation route (their JSON twins, `body: audio-file-request`, read by `json-upload`)
 * through kernel.call under the project's key, so it is queued, budgeted (by the minute of
 * audio) and recorded like a client's upload.
 */
import { randomUUID } from 'node:crypto'
import { GatewayError, definePlugin, reply, unitPrices, valueOf } from '../../kernel/contract/index.js'
import { decodeBase64Payload } from '../../protocols/http/base64-payload.js'
import { queryResponse } from '../../protocols/query/response.js'
import { mediaMetadata } from '../../protocols/query/media-metadata.js'
import { mediaRequestModel } from '../../protocols/query/media-model.js'
import type { QueryAudioRequest } from '../../schemas/query-media.schema.js'
import { configSchema } from './schema.js'

function bad(message: string): GatewayError {
  return new GatewayError(400, message, { code: 'invalid_request' })
}

interface Transcript {
  text?: unknown
  language?: unknown
  duration?: unknown
}

export default definePlugin({
  name: 'query-audio',
  config: configSchema,
  requires: ['queryAuth', 'principal'],
  setup(config, kernel) {
    const routes = { transcribe: config.transcribe_route, translate: config.translate_route }
    const maxFile = config.max_file_bytes
    return {
      async request(ex, next) {
        const body = ex.body as QueryAudioRequest
        const model = mediaRequestModel(
          ex.state.queryAuth.token.kind,
          body,
          kernel.catalog.models(),
          'audio_transcription',
        )
        // Checked here so that the error names the Query service's field, not the twin's.
        const audio = decodeBase64Payload(body.audio_file)
        if (!audio) throw bad('audio_file must be base64 (or a base64 data URL)')
        if (audio.data.length > maxFile)
          throw new GatewayError(413, `audio_file is larger than ${maxFile} bytes`, { code: 'body_too_large' })
        if (body.task === 'translate' && model.audio?.translation !== true)
          throw bad(`model_name ${model.id} does not translate; use a model with translation`)
        const call = {
          model: model.id,
          // Plain base64: the twin's json-upload reads no data URL.
          file_base64: audio.base64,
          ...(audio.contentType ? { content_type: audio.contentType } : {}),
          filename: body.filename ?? 'audio.wav',
          // The task is the route's (the transcriptions or the translations twin), not a field.
          // verbose_json says the audio's duration and language, whatever format the server prefers.
          response_format: 'verbose_json',
          ...(body.language ? { language: body.language } : {}),
          ...(body.query ? { prompt: body.query } : {}),
        }
        const result = await kernel.call(routes[body.task], call, {
          principal: ex.principal,
          signal: ex.signal,
          parentId: ex.id,
        })
        const transcript = (result.reply.kind === 'json' ? result.reply.body : undefined) as Transcript | undefined
        if (typeof transcript?.text !== 'string')
          throw new GatewayError(502, 'the transcription route sent no transcript', { code: 'upstream_failed' })
        const used = result.usage.used()
        const metadata = mediaMetadata(
          {
            queryId: `q-${randomUUID()}`,
            modelId: model.id,
            used,
            prices: unitPrices(model.prices),
            cost: valueOf(model.prices, used),
          },
          {
            task: body.task,
            ...(typeof transcript.language === 'string' ? { language: transcript.language } : {}),
            audio_seconds: used.audioSeconds,
          },
        )
        ex.reply = reply.json(queryResponse('audio', transcript.text, metadata))
        await next()
      },
    }
  },
})
