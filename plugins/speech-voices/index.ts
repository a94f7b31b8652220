/**
 * speech-voices: GET /audio/voices?model=<id> → `{"voices": [...], "uploaded_voices": []}`,
 * the speech model's voices from config (`audio.voices`). The route has no body, so the `model`
 * step (which reads the body) cannot resolve the model; the query parameter gets the same
 * rules: a known model or server name, enabled, permitted to the caller, and a speech model.
 */
import { definePlugin } from '../../kernel/plugin.js'
import { GatewayError } from '../../kernel/errors.js'
import { reply } from '../../kernel/reply.js'
import { configSchema } from './schema.js'

export interface VoiceList {
  voices: string[]
  /** Voices uploaded by clients; the gateway has no upload route, so always empty. */
  uploaded_voices: string[]
}

export default definePlugin({
  name: 'speech-voices',
  config: configSchema,
  requires: ['auth'],
  setup(_config, kernel) {
    return {
      async request(ex) {
        const requested = ex.query.get('model')
        if (!requested) throw new GatewayError(400, 'model is required', { code: 'invalid_request' })
        const model = kernel.catalog.model(requested) ?? kernel.catalog.byReportedName(requested)
        if (!model) throw new GatewayError(404, `model ${requested} is not registered`)
        if (model.model_type !== 'audio_speech') throw new GatewayError(400, `model ${requested} is not a speech model`, { code: 'invalid_request' })
        if (model.enabled === false) throw new GatewayError(403, 'model is disabled')
        const allowed = (ex.principal && kernel.keys.group(ex.principal.group)?.models) || ['*']
        if (!allowed.includes('*') && !allowed.includes(model.id) && !allowed.includes(requested)) throw new GatewayError(403, 'model not permitted for tenant')
        const list: VoiceList = { voices: [...(model.audio?.voices ?? [])], uploaded_voices: [] }
        ex.reply = reply.json(list)
      },
    }
  },
})
