/**
 * speech-voices: GET /audio/voices?model=<id> → `{"voices": [...], "uploaded_voices": []}`,
 * the speech model's voices from config (`audio.voices`). The route has no body, so the `model`
 * step (which reads the body) cannot resolve the model; the query parameter gets the same
 * rules: a known model or server name, enabled, permitted to the caller (the catalog's one
 * permission check), and a speech model.
 */
import { GatewayError, definePlugin, reply } from '../../kernel/contract/index.js'
import { configSchema } from './schema.js'
import type { VoiceList } from '../../schemas/audio-response.schema.js'

const notSpeech = (name: string) =>
  new GatewayError(400, `model ${name} is not a speech model`, { code: 'invalid_request' })

export default definePlugin({
  name: 'speech-voices',
  config: configSchema,
  requires: ['principal'],
  setup(_config, kernel) {
    return {
      async request(ex) {
        const requested = ex.query.get('model')
        if (!requested) throw new GatewayError(400, 'model is required', { code: 'invalid_request' })
        const { catalog } = kernel
        // Family names and `auto` are names of the catalog too, of chat models only: asking one
        // for voices is a wrong kind of model (400), not an unknown name (404).
        if (requested === 'auto' || catalog.family(requested)) throw notSpeech(requested)
        const model = catalog.model(requested) ?? catalog.byReportedName(requested)
        if (!model) throw new GatewayError(404, `model ${requested} is not registered`)
        if (model.model_type !== 'audio_speech') throw notSpeech(requested)
        if (model.enabled === false) throw new GatewayError(403, 'model is disabled')
        if (!kernel.catalog.permits(ex.principal, [requested, model.id]))
          throw new GatewayError(403, 'model not permitted for tenant')
        const list: VoiceList = { voices: [...(model.audio?.voices ?? [])], uploaded_voices: [] }
        ex.reply = reply.json(list)
      },
    }
  },
})
