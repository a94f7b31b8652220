/**
 * admin-models: the catalog as an operator sees it, with what is live: every model (retired
 * ones too), its type, capabilities, boons and retirement (status, replacement, dates, whether
 * it has retired), and per backend pool its capacity and the requests waiting and running in
 * the fair queue now, as this process sees them (the same figures as `sluice_queue_*` in
 * /metrics). The models tab of the portal reads it; it is cheap: no I/O.
 */
import { definePlugin, reply } from '../../kernel/contract/index.js'
import type { ModelConfig } from '../../schemas/models.schema.js'
import { configSchema } from './schema.js'

const CAPABILITIES = [
  'supports_function_calling',
  'supports_response_schema',
  'supports_vision',
  'supports_tool_choice',
  'supports_completions',
] as const

export default definePlugin({
  name: 'admin-models',
  config: configSchema,
  requires: ['admin'],
  setup(_config, kernel) {
    const modelView = (m: ModelConfig, now: number) => ({
      id: m.id,
      model_type: m.model_type,
      backend: m.backend,
      context_window: m.context_window ?? null,
      capabilities: CAPABILITIES.filter((c) => m[c] === true).map((c) => c.slice('supports_'.length)),
      reasoning: m.reasoning?.mode ?? 'unsupported',
      boons: Object.keys(m.boons ?? {}),
      status: m.status ?? 'active',
      replacement: m.replacement ?? null,
      deprecated_at: m.deprecated_at ?? m.retire_at ?? null,
      retire_at: m.retire_at ?? null,
      retired: m.retire_at !== undefined && Date.parse(m.retire_at) <= now,
    })
    return {
      async request(ex) {
        const now = kernel.now()
        const load = kernel.load.pools()
        const backends = Object.entries(kernel.config.models.backends).map(([name, b]) => {
          const mine = load.filter((l) => l.pool === name)
          return {
            name,
            capacity: kernel.catalog.backend(name)?.capacity ?? b.capacity ?? 8,
            waiting: mine.reduce((s, l) => s + l.waiting, 0),
            running: mine.reduce((s, l) => s + l.running, 0),
            models: mine.map((l) => ({ model: l.model, waiting: l.waiting, running: l.running })),
          }
        })
        ex.reply = reply.json({
          object: 'portal.models',
          at: new Date(now).toISOString(),
          models: kernel.catalog.models().map((m) => modelView(m, now)),
          families: kernel.catalog
            .families()
            .map((f) => ({ id: f.id, default_level: f.default_level, members: { ...f.members } })),
          backends,
        })
      },
    }
  },
})
