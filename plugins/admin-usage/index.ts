/**
 * admin-usage: usage per key, per model or per group over a period — requests, tokens and
 * indicative value (no charge) — and the usage records themselves. Query: `from`, `to` (ISO
 * 8601 or epoch ms; default this month so far), `key`, `group`, `model` (filters), `by`
 * (`key`, `model` or `group`; summary), `limit` (records), `request_id` (records: a client
 * request's record and those of the internal calls it caused). A summary counts client
 * requests and what they were told; internal calls are shown apart, and `charged` is what
 * budgets were charged for both. Buffered records are written before
 * the query runs, so the answer includes the last requests.
 */
import { GatewayError, definePlugin, reply } from '../../kernel/contract/index.js'
import type { UsageDimension, UsageRecord } from '../../kernel/contract/index.js'
import { configSchema } from './schema.js'
import { usagePeriod } from './period.js'
import type { UsageRecordView } from '../../schemas/admin-response.schema.js'

const dimensions: readonly UsageDimension[] = ['key', 'model', 'group']

function recordView(r: UsageRecord): UsageRecordView {
  return {
    at: new Date(r.at).toISOString(),
    request_id: r.requestId,
    key: r.keyId,
    group: r.group,
    route: r.route,
    model_requested: r.modelRequested,
    model: r.model,
    upstream_model: r.upstreamModel,
    prompt_tokens: r.promptTokens,
    completion_tokens: r.completionTokens,
    cached_tokens: r.cachedTokens,
    audio_seconds: r.audioSeconds,
    characters: r.characters,
    usage_source: r.usageSource,
    value: r.value,
    charged: r.charged,
    status: r.status,
    outcome: r.outcome,
    queue_ms: r.queueMs,
    ttft_ms: r.ttftMs,
    total_ms: r.totalMs,
    parent_request_id: r.parentRequestId,
    cached: r.cached,
    fallback_from: r.fallbackFrom,
  }
}

export default definePlugin({
  name: 'admin-usage',
  config: configSchema,
  requires: ['admin'],
  setup(config, kernel) {
    return {
      async request(ex) {
        const period = usagePeriod(ex.query, kernel.now())
        const range = { from: new Date(period.from).toISOString(), to: new Date(period.to).toISOString() }
        if (config.action === 'records') {
          const raw = ex.query.get('limit')
          const limit = raw === null ? config.max_records : Number(raw)
          if (!Number.isInteger(limit) || limit < 1 || limit > config.max_records)
            throw new GatewayError(400, `invalid request: limit must be an integer from 1 to ${config.max_records}`, {
              code: 'invalid_request',
            })
          const records = await kernel.records.list(period, limit)
          ex.reply = reply.json({ object: 'list', ...range, data: records.map(recordView) })
          return
        }
        const by = (ex.query.get('by') ?? 'key') as UsageDimension
        if (!dimensions.includes(by))
          throw new GatewayError(400, `invalid request: by must be one of ${dimensions.join(', ')}`, {
            code: 'invalid_request',
          })
        const rows = await kernel.records.summarize(period, by)
        ex.reply = reply.json({
          object: 'list',
          by,
          ...range,
          data: rows.map((r) => ({
            [by]: r.name,
            requests: r.requests,
            prompt_tokens: r.promptTokens,
            completion_tokens: r.completionTokens,
            cached_tokens: r.cachedTokens,
            total_tokens: r.promptTokens + r.completionTokens,
            audio_seconds: r.audioSeconds,
            characters: r.characters,
            value: r.value,
            internal: {
              requests: r.internalRequests,
              prompt_tokens: r.internalPromptTokens,
              completion_tokens: r.internalCompletionTokens,
            },
            charged: r.charged,
            last_at: new Date(r.lastAt).toISOString(),
          })),
        })
      },
    }
  },
})
