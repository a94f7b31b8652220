/**
 * speech: the speech streamer. POST /audio/speech sends the request to the speech server of
 * the resolved model and streams the audio back as it is made (pcm, wav, or server-sent
 * events), or, for mp3/opus/flac and whole-file servers, once it is complete. Whatever the
 * server can encode, all five formats work: the gateway encodes from PCM, in process.
 */
import { GatewayError, definePlugin } from '../../kernel/contract/index.js'
import { speechRequestSchema, type SpeechRequest } from '../../schemas/speech-request.schema.js'
import { configSchema } from './schema.js'
import { speechSettingsByModel } from './speech-settings.js'
import { planSpeech } from './speech-plan.js'
import { requestSpeech } from './speech-upstream.js'
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
        const plan = planSpeech(body, s, model.served_name ?? model.id)
        const record: SpeechRecord = {
          modelId: model.id,
          format: plan.format,
          delivery: plan.delivery,
          sse: plan.sse,
          pcmBytes: 0,
        }
        ex.state.speech = record
        const upstream = await requestSpeech(kernel, ex, model, plan.upstreamBody)
        try {
          ex.reply = await deliver(
            {
              ex,
              plan,
              input: body.input,
              sampleRate: s.sampleRate,
              pcmFrom: s.pcmFrom,
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
