/**
 * query-realtime: the extension point of `endpoint: "realtime"` on the Query service's
 * WebSocket (spec 001, "Realtime request"). Not served yet: every message gets a 501 error
 * message naming it, and the socket stays open. The realtime route (transcription → the
 * model → text and speech deltas) replaces this step; pipelines/query.yaml already routes
 * `endpoint: realtime` here.
 */
import { definePlugin } from '../../kernel/plugin.js'
import { GatewayError } from '../../kernel/errors.js'
import { configSchema } from './schema.js'

export default definePlugin({
  name: 'query-realtime',
  config: configSchema,
  requires: ['queryAuth'],
  provides: [],
  setup() {
    return {
      async request() {
        throw new GatewayError(501, 'endpoint realtime is not served yet')
      },
    }
  },
})
