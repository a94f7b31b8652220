/**
 * query-speech: the Query service's `speech` body type (spec 001, rule 2): a text in, its
 * spoken audio out. The query envelope is JSON, so the audio comes back whole, base64, as
 * `response.response = {audio_base64, format, sample_rate}`. It is made by the gateway's speech
 * route through kernel.call under the project's key (queued, budgeted by the character and
 * recorded); a streamed route reply is read to its end before the answer is sent.
 */
import { randomUUID } from 'node:crypto'
import { GatewayError, definePlugin, reply, unitPrices, valueOf } from '../../kernel/contract/index.js'
import { queryResponse } from '../../protocols/query/response.js'
import { mediaMetadata } from '../../protocols/query/media-metadata.js'
import { mediaRequestModel } from '../../protocols/query/media-model.js'
import type { QuerySpeechRequest } from '../../schemas/query-media.schema.js'
import { configSchema } from './schema.js'
import { wholeAudio, withTrueWavSizes } from './whole-audio.js'

/** The Query service's format names (the realtime request's) → the speech route's. */
const ROUTE_FORMAT = { pcm16: 'pcm', wav: 'wav', mp3: 'mp3' } as const

/** Orpheus's audio tokens: 7 per 2048 samples at 24 kHz (plugins/speech/speech-usage.ts). */
const SECONDS_PER_AUDIO_TOKEN = 2048 / 7 / 24000

export default definePlugin({
  name: 'query-speech',
  config: configSchema,
  requires: ['queryAuth', 'principal'],
  setup(config, kernel) {
    const route = config.route
    return {
      async request(ex, next) {
        const body = ex.body as QuerySpeechRequest
        const model = mediaRequestModel(ex.state.queryAuth.token.kind, body, kernel.catalog.models(), 'audio_speech')
        const format = body.output_audio_format ?? 'mp3'
        const sampleRate = model.audio?.sample_rate ?? 24000
        const call = {
          model: model.id,
          input: body.query,
          response_format: ROUTE_FORMAT[format],
          ...(body.voice ? { voice: body.voice } : {}),
          ...(body.language ? { language: body.language } : {}),
        }
        const result = await kernel.call(route, call, { principal: ex.principal, signal: ex.signal, parentId: ex.id })
        if (result.reply.kind !== 'bytes')
          throw new GatewayError(502, 'the speech route sent no audio', { code: 'upstream_failed' })
        let audio = await wholeAudio(result.reply.data)
        if (format === 'wav') audio = withTrueWavSizes(audio)
        // Usage is final once the audio has been read to its end.
        const used = result.usage.used()
        const pcmBytes = format === 'pcm16' ? audio.length : format === 'wav' ? audio.length - 44 : undefined
        const seconds = pcmBytes !== undefined ? pcmBytes / 2 / sampleRate : used.outputTokens * SECONDS_PER_AUDIO_TOKEN
        const metadata = mediaMetadata(
          {
            queryId: `q-${randomUUID()}`,
            modelId: model.id,
            used,
            prices: unitPrices(model.prices),
            cost: valueOf(model.prices, used),
          },
          {
            ...(body.voice ? { voice: body.voice } : {}),
            characters: used.characters,
            audio_seconds: Math.round(seconds * 1000) / 1000,
          },
        )
        ex.reply = reply.json(
          queryResponse(
            'speech',
            { audio_base64: audio.toString('base64'), format, sample_rate: sampleRate },
            metadata,
          ),
        )
        await next()
      },
    }
  },
})
