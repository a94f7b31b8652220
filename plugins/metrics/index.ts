/**
 * metrics: the process's Prometheus metrics in the text exposition format (version 0.0.4):
 * the fair queue (waiting and running per model, wait time, timeouts, pool capacity), budget
 * refusals and usage-record writes. Labels name models and pools only, never keys or groups.
 */
import { definePlugin } from '../../kernel/plugin.js'
import { reply } from '../../kernel/reply.js'
import { configSchema } from './schema.js'

export default definePlugin({
  name: 'metrics',
  config: configSchema,
  setup(_config, kernel) {
    return {
      async request(ex) {
        ex.reply = reply.text('text/plain; version=0.0.4; charset=utf-8', kernel.metrics.render())
      },
    }
  },
})
