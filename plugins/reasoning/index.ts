/**
 * reasoning: maps `reasoning_effort` onto the model that answers. Validates the level (four
 * levels and their synonyms; anything else is 400), picks the level the model serves (its
 * default when omitted, the nearest it has when it lacks the one asked for), merges the
 * request fields the model declares for that level, and says what was served in
 * `x-gateway-reasoning-effort` (and `…-requested` when it differs from the ask).
 */
import { definePlugin } from '../../kernel/contract/index.js'
import { parseEffort } from '../../protocols/openai/reasoning-effort.js'
import type { ReasoningLevel } from '../../schemas/models.schema.js'
import { configSchema } from './schema.js'
import { chooseLevel, mergeFields, priorValues, type ServedLevel } from '../../domains/gateway/reasoning-levels.js'

declare module '../../kernel/contract/index.js' {
  interface ExchangeState {
    reasoning?: {
      requested?: ReasoningLevel
      served: ServedLevel
      /**
       * For a model with fallbacks only: what the merge replaced in the body (its top-level
       * keys' values before it), so the backend can shape the request anew for a fallback.
       */
      prior?: Record<string, unknown>
    }
  }
}

export default definePlugin({
  name: 'reasoning',
  config: configSchema,
  requires: ['model'],
  setup(config) {
    return {
      // Not async: nothing to do after next(), so its promise is handed back as it is.
      request(ex, next) {
        const body = ex.body as Record<string, unknown>
        const requested = parseEffort(body.reasoning_effort)
        const { model, familyLevel } = ex.state.model
        // A family already chose its member for the level; the member maps that level.
        const choice = chooseLevel(model, familyLevel ?? requested)
        if (!config.keep_effort_field) delete body.reasoning_effort
        const prior = model.fallbacks?.length ? priorValues(body, choice.fields) : undefined
        mergeFields(body, choice.fields)
        ex.state.reasoning = { requested, served: choice.served, prior }
        const prefix = ex.headerPrefix
        ex.headers.set(`${prefix}reasoning-effort`, choice.served)
        if (requested !== undefined && requested !== choice.served)
          ex.headers.set(`${prefix}reasoning-effort-requested`, requested)
        return next()
      },
    }
  },
})
