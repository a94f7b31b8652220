/**
 * boons: the add-ons the gateway gives a model (models.yaml `boons`). The client turns them
 * all off for a request with `x-gateway-boons: off`; the response's `x-gateway-boons` lists
 * the ones that acted. Implemented: `vision` (a helper model describes images for a text-only
 * model). `web_search`, `image_generation` and `speculation` are listed in the catalog when
 * configured but do not act yet (docs/decisions.md).
 */
import { definePlugin } from '../../kernel/plugin.js'
import { configSchema } from './schema.js'
import { describeImages } from './vision.js'
import { speculateFor } from './speculation.js'
import { boonActs } from '../../kernel/services/catalog/boons.js'

declare module '../../kernel/exchange.js' {
  interface ExchangeState {
    boons?: { acted: string[] }
  }
}

export default definePlugin({
  name: 'boons',
  config: configSchema,
  requires: ['model'],
  setup(config, kernel) {
    const speculations = kernel.metrics.counter('sluice_speculation_total', 'Speculation boon outcomes: accepted, rejected (by the check or cut) and skipped (draft or check failed).')
    return {
      async request(ex, next) {
        const acted: string[] = []
        const off = ex.header(`${ex.headerPrefix}boons`)?.trim().toLowerCase() === 'off'
        const model = ex.state.model!.model
        const vision = model.boons?.vision
        const body = ex.body as { messages?: { content?: unknown }[]; [field: string]: unknown }
        if (!off && vision?.helper_model && boonActs(model, 'vision') && Array.isArray(body.messages)) {
          const n = await describeImages(kernel, ex, body.messages, {
            route: config.route ?? 'chat-internal',
            prompt: config.describe_prompt ?? '',
            maxTokens: config.describe_max_tokens ?? 400,
            helper: vision.helper_model,
          })
          if (n > 0) acted.push('vision')
        }
        // Speculation last: the draft reads the request as the model would (images already described).
        const speculation = off ? undefined : await speculateFor(kernel, ex, model, body, config)
        if (speculation) speculations.inc({ outcome: speculation.kind })
        // "Acted" = a draft was made and judged, accepted or rejected; a skipped one did not act.
        if (speculation && speculation.kind !== 'skipped') acted.push('speculation')
        ex.state.boons = { acted }
        if (acted.length > 0) ex.headers.set(`${ex.headerPrefix}boons`, acted.join(', '))
        // An accepted draft is the reply: the model is not called.
        if (speculation?.kind === 'accepted') ex.reply = speculation.reply
        else await next()
      },
    }
  },
})
