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
import { speculable, speculate } from './speculation.js'
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
        const spec = model.boons?.speculation
        if (!off && spec?.helper_model && boonActs(model, 'speculation') && speculable(body)) {
          const outcome = await speculate(kernel, ex, body, {
            route: config.route ?? 'chat-internal',
            question: config.speculation_question ?? '',
            draftModel: spec.helper_model,
            largeModel: model.id,
            servedName: model.served_name ?? model.id,
            minYes: spec.min_yes_probability ?? 0.5,
            maxDraftTokens: spec.max_draft_tokens ?? 512,
          })
          speculations.inc({ outcome: outcome.kind })
          // "Acted" = a draft was made and judged, accepted or rejected; a skipped one did not act.
          if (outcome.kind !== 'skipped') acted.push('speculation')
          if (outcome.kind === 'accepted') {
            ex.state.boons = { acted }
            ex.headers.set(`${ex.headerPrefix}boons`, acted.join(', '))
            ex.reply = outcome.reply
            return
          }
        }
        ex.state.boons = { acted }
        if (acted.length > 0) ex.headers.set(`${ex.headerPrefix}boons`, acted.join(', '))
        await next()
      },
    }
  },
})
