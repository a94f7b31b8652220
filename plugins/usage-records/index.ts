/**
 * usage-records: one usage record for every request that reached a model (client requests
 * and in-process `kernel.call`s alike), however it ended:
 * time, request id, key, group, route, the model asked for and the one that answered, input,
 * output and cached tokens, audio seconds and characters, whether the figures were reported
 * or estimated, indicative value, status and timing (queue wait, time to first token, total).
 * Never prompt or reply text. Every figure comes from `ex.usage`, by the kernel's one rule.
 * A request answered through internal calls (boon rounds, a draft, verdict questions) or the
 * response cache records what the client was told (`ex.usage.told()`), and is charged only its
 * own call; each internal call has its own record, linked by `parent_request_id`.
 * A whole reply or an error is recorded just before the kernel writes it (so a kill -9 after
 * the client got it cannot lose its record); a stream, when it has ended.
 * `kernel.records.add` only buffers: the record reaches the store in the next batch, off the
 * request path.
 */
import { definePlugin, valueOf, type Exchange, type Outcome } from '../../kernel/contract/index.js'
import { outcomeOf, type UsageRecord } from '../../kernel/contract/index.js'
import { configSchema } from './schema.js'

export default definePlugin({
  name: 'usage-records',
  config: configSchema,
  requires: ['principal'],
  provides: [],
  meters: 'records',
  setup(_config, kernel) {
    const record = (ex: Exchange, outcome: Outcome): void => {
      // Only requests that told of a model's work are recorded: a model server was called, or
      // internal calls (or the cache) answered for it.
      const usage = ex.usage
      if (!usage.answered) return
      const chosen = ex.state.model
      const told = usage.told()
      const answeredId = usage.toldModel!
      const answered =
        answeredId === chosen?.model.id ? chosen.model : (kernel.catalog.model(answeredId) ?? chosen?.model)
      const prices = answered?.prices
      const now = kernel.now()
      kernel.records.add({
        at: ex.startedAt,
        requestId: ex.id,
        keyId: ex.principal?.keyId ?? '',
        group: ex.principal?.group ?? '',
        route: ex.route.id,
        modelRequested: chosen?.requested ?? answeredId,
        model: answered?.id ?? answeredId,
        upstreamModel: usage.upstreamModel ?? null,
        promptTokens: told.inputTokens,
        completionTokens: told.outputTokens,
        cachedTokens: told.cachedTokens,
        audioSeconds: told.audioSeconds,
        characters: told.characters,
        usageSource: told.source,
        value: prices ? valueOf(prices, told) : 0,
        status: outcome.status,
        outcome: outcome.kind,
        queueMs: ex.state.queue?.waitedMs ?? null,
        ttftMs: usage.firstTokenAt === undefined ? null : Math.max(0, usage.firstTokenAt - ex.startedAt),
        totalMs: Math.max(0, now - ex.startedAt),
        parentRequestId: ex.parentId ?? null,
        // What the budget plugin settles: this request's own model call (and a charged cache hit).
        charged: prices ? valueOf(prices, usage.charged()) : 0,
        cached: usage.cached,
        fallbackFrom: usage.fallbackFrom ?? null,
      } satisfies UsageRecord)
    }
    // Requests recorded before their reply left; their finish has nothing more to say.
    const recorded = new WeakSet<Exchange>()
    return {
      /**
       * A whole reply, or an error, is recorded before the kernel writes it: once its bytes can
       * reach the client, its record is already in the journal, so a crash in between loses
       * nothing. A stream is recorded when it ends, however it ends (finish).
       */
      async request(ex, next) {
        try {
          await next()
        } catch (err) {
          recorded.add(ex)
          record(ex, outcomeOf(ex, err))
          throw err
        }
        const reply = ex.reply
        if (reply && reply.kind !== 'events' && !(reply.kind === 'bytes' && !(reply.data instanceof Uint8Array))) {
          recorded.add(ex)
          record(ex, { kind: 'done', status: reply.status })
        }
      },
      finish(ex, outcome) {
        if (!recorded.has(ex)) record(ex, outcome)
      },
    }
  },
})
