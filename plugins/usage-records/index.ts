/**
 * usage-records: one usage record for every request that reached a model (client requests
 * and in-process `kernel.call`s alike), written when the reply has ended, however it ended:
 * time, request id, key, group, route, the model asked for and the one that answered, prompt,
 * completion and cached tokens, indicative value, status and timing (queue wait, time to
 * first token, total). Never prompt or reply text. `kernel.records.add` only buffers: the
 * record reaches the store in the next batch, off the request path.
 */
import { definePlugin } from '../../kernel/plugin.js'
import type { Exchange } from '../../kernel/exchange.js'
import type { Outcome } from '../../kernel/plugin.js'
import type { UsageRecord } from '../../kernel/services/stores/store.js'
import { estimatePromptTokens } from '../../protocols/openai/token-estimate.js'
import { figuresOf, indicativeValue, type TokenFigures } from '../../protocols/usage/indicative-value.js'
import { configSchema } from './schema.js'

export default definePlugin({
  name: 'usage-records',
  config: configSchema,
  requires: ['auth', 'model'],
  provides: [],
  setup(config, kernel) {
    const estimate = { perMessage: config.tokens_per_message, perImage: config.tokens_per_image }
    return {
      finish(ex, outcome) {
        // Only requests that reached a model are recorded: the backend step was entered.
        const backend = ex.state.backend
        const model = ex.state.model
        if (!backend || !model) return
        const figures = tokenFigures(ex, estimate)
        const now = kernel.now()
        const record: UsageRecord = {
          at: ex.startedAt,
          requestId: ex.id,
          keyId: ex.principal?.keyId ?? '',
          group: ex.principal?.group ?? '',
          route: ex.route.id,
          modelRequested: model.requested,
          model: model.model.id,
          upstreamModel: backend.upstreamModel ?? null,
          ...figures,
          value: indicativeValue(model.model.prices, figures),
          status: outcome.status,
          outcome: outcome.kind satisfies Outcome['kind'],
          queueMs: ex.state.queue?.waitedMs ?? null,
          ttftMs: backend.firstTokenAt === undefined ? null : Math.max(0, backend.firstTokenAt - ex.startedAt),
          totalMs: Math.max(0, now - ex.startedAt),
        }
        kernel.records.add(record)
      },
    }
  },
})

/** The usage report; without one, the prompt estimate and the pieces streamed; zero when nothing came. */
function tokenFigures(ex: Exchange, estimate: { perMessage: number; perImage: number }): TokenFigures {
  const usage = ex.state.backend?.usage
  if (usage) return figuresOf(usage)
  const streamed = ex.state.backend?.streamedTokens ?? 0
  if (streamed === 0 && ex.state.backend?.firstTokenAt === undefined) return { promptTokens: 0, completionTokens: 0, cachedTokens: 0 }
  return { promptTokens: estimatePromptTokens(ex.body, estimate), completionTokens: streamed, cachedTokens: 0 }
}
