/**
 * usage-records: one usage record for every request that reached a model (client requests
 * and in-process `kernel.call`s alike), written when the reply has ended, however it ended:
 * time, request id, key, group, route, the model asked for and the one that answered, input,
 * output and cached tokens, audio seconds and characters, whether the figures were reported
 * or estimated, indicative value, status and timing (queue wait, time to first token, total).
 * Never prompt or reply text. Every figure comes from `ex.usage`, by the kernel's one rule.
 * `kernel.records.add` only buffers: the record reaches the store in the next batch, off the
 * request path.
 */
import { definePlugin } from '../../kernel/plugin.js'
import type { Outcome } from '../../kernel/plugin.js'
import type { UsageRecord } from '../../kernel/services/stores/store.js'
import { valueOf } from '../../kernel/services/catalog/prices.js'
import { configSchema } from './schema.js'

export default definePlugin({
  name: 'usage-records',
  config: configSchema,
  requires: ['principal', 'model'],
  provides: [],
  meters: 'records',
  setup(_config, kernel) {
    return {
      finish(ex, outcome) {
        // Only requests that reached a model are recorded: a model server was called.
        const usage = ex.usage
        const model = ex.state.model
        if (!usage.reached || !model) return
        const used = usage.used()
        const answered = usage.model === model.model.id ? model.model : (kernel.catalog.model(usage.model!) ?? model.model)
        const now = kernel.now()
        const record: UsageRecord = {
          at: ex.startedAt,
          requestId: ex.id,
          keyId: ex.principal?.keyId ?? '',
          group: ex.principal?.group ?? '',
          route: ex.route.id,
          modelRequested: model.requested,
          model: answered.id,
          upstreamModel: usage.upstreamModel ?? null,
          promptTokens: used.inputTokens,
          completionTokens: used.outputTokens,
          cachedTokens: used.cachedTokens,
          audioSeconds: used.audioSeconds,
          characters: used.characters,
          usageSource: used.source,
          value: valueOf(answered.prices, used),
          status: outcome.status,
          outcome: outcome.kind satisfies Outcome['kind'],
          queueMs: ex.state.queue?.waitedMs ?? null,
          ttftMs: usage.firstTokenAt === undefined ? null : Math.max(0, usage.firstTokenAt - ex.startedAt),
          totalMs: Math.max(0, now - ex.startedAt),
        }
        kernel.records.add(record)
      },
    }
  },
})
