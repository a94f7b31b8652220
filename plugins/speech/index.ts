/**
 * speech: the speech streamer. POST /audio/speech sends the request to the speech server of
 * the resolved model and streams the audio back as it is made (pcm, wav, or server-sent
 * events), or, for mp3/opus/flac and whole-file servers, once it is complete. Whatever the
 * server can encode, all five formats work: the gateway encodes from PCM, in process.
 */
import { GatewayError, definePlugin, type UpstreamCall } from '../../kernel/contract/index.js'
import { speechRequestSchema, type SpeechRequest } from '../../schemas/speech-request.schema.js'
import { configSchema } from './schema.js'
import { speechSettingsByModel } from './speech-settings.js'
import { planSpeech, type SpeechPlan } from './speech-plan.js'
import { requestSpeech, speechCall } from './speech-upstream.js'
import type { ModelConfig } from '../../schemas/models.schema.js'
import { speechDemand } from './speech-usage.js'
import { deliver, type SpeechRecord } from './speech-delivery.js'

declare module '../../kernel/contract/index.js' {
  interface ExchangeState {
    /** What the speech step did: for records, budgets and benchmarks (time to first audio). */
    speech?: SpeechRecord
  }
}

export default definePlugin({
  name: 'speech',
  config: configSchema,
  requires: ['model'],
  body: speechRequestSchema,
  reachesModel: {
    demand: (ex) =>
      speechDemand(typeof (ex.body as { input?: unknown }).input === 'string' ? (ex.body as SpeechRequest).input : ''),
  },
  setup(config, kernel) {
    // Checked at load: a bad voice map stops the boot instead of failing requests.
    const settings = speechSettingsByModel(kernel.catalog.models())
    const sseChunkBytes = config.sse_chunk_bytes
    return {
      async request(ex, next) {
        const resolved = ex.state.model
        const model = resolved.model
        const s = settings.get(model.id)
        if (!s)
          throw new GatewayError(400, `model ${resolved.requested} is not a speech model`, { code: 'invalid_request' })
        const body = ex.body
        // The model that answers, its settings and plan: a fallback's, when one answers.
        let served = { model, s, plan: planSpeech(body, s, model.served_name ?? model.id) }
        const record: SpeechRecord = {
          modelId: model.id,
          format: served.plan.format,
          delivery: served.plan.delivery,
          sse: served.plan.sse,
          pcmBytes: 0,
        }
        ex.state.speech = record
        // A fallback speaks with its own voices and formats: the request is planned anew for it,
        // and a model that cannot take it (a voice or language it lacks) is skipped.
        const refit = model.fallbacks?.length
          ? (other: ModelConfig): UpstreamCall | undefined => {
              const os = settings.get(other.id)
              if (!os) return undefined
              let plan: SpeechPlan
              try {
                plan = planSpeech(body, os, other.served_name ?? other.id)
              } catch {
                return undefined
              }
              served = { model: other, s: os, plan }
              return speechCall(other, plan.upstreamBody)
            }
          : undefined
        const upstream = await requestSpeech(kernel, ex, speechCall(model, served.plan.upstreamBody), refit)
        const { plan } = served
        if (served.model !== model)
          Object.assign(record, {
            modelId: served.model.id,
            format: plan.format,
            delivery: plan.delivery,
            sse: plan.sse,
          })
        try {
          ex.reply = await deliver(
            {
              ex,
              plan,
              input: body.input,
              sampleRate: served.s.sampleRate,
              pcmFrom: served.s.pcmFrom,
              sseChunkBytes,
              record,
              now: kernel.now,
            },
            upstream,
          )
        } catch (err) {
          upstream.destroy()
          throw err
        }
        await next()
      },
    }
  },
})
