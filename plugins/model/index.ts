/**
 * model: resolves the `model` of the body to the catalog model that will answer. Exact
 * catalog ids, family names (the member for the requested reasoning level, else the family's
 * default level) and the model server's own reported names are accepted. Checks that the
 * model is of the route's type, enabled, and permitted to the caller's group, and applies
 * retirement (deprecation headers, then 410 or the replacement).
 */
import { GatewayError, definePlugin, type Exchange } from '../../kernel/contract/index.js'
import { parseEffort } from '../../protocols/openai/reasoning-effort.js'
import { chooseAutoModel, hasImageParts, queueLoadOf } from '../../domains/gateway/auto-model.js'
import type { FamilyConfig, ModelConfig, ReasoningLevel } from '../../schemas/models.schema.js'
import { configSchema } from './schema.js'

declare module '../../kernel/contract/index.js' {
  interface ExchangeState {
    model?: {
      /** The name the client sent. */
      requested: string
      /** The catalog model that answers (a family's member, once chosen). */
      model: ModelConfig
      /** Set when the client named a family. */
      family?: FamilyConfig
      /** The level the family member was chosen for. */
      familyLevel?: ReasoningLevel
    }
  }
}

export default definePlugin({
  name: 'model',
  config: configSchema,
  requires: ['principal'],
  setup(config, kernel) {
    const types = new Set(config.types)
    const wanted = config.types.join(' or ')
    const notA = `not ${/^[aeiou]/.test(wanted) ? 'an' : 'a'} ${wanted} model`
    const modelsPath = config.models_path
    /**
     * Retirement by the clock, no reload needed: before retire_at a deprecated model answers
     * with the notice headers; after it, 410 or the replacement answers, per model config.
     */
    const retirement = (model: ModelConfig, ex: Exchange): ModelConfig => {
      if (model.status !== 'deprecated' || !model.retire_at || !model.replacement) return model
      const retireAt = Date.parse(model.retire_at)
      const prefix = ex.headerPrefix
      ex.headers.set(`${prefix}model-replacement`, model.replacement)
      ex.headers.set('link', `<${modelsPath}/${model.replacement}>; rel="successor-version"`)
      if (kernel.now() >= retireAt) {
        if (model.on_retired === 'replace') return kernel.catalog.model(model.replacement)!
        throw new GatewayError(410, `model ${model.id} was retired; use ${model.replacement}`, {
          code: 'model_retired',
          exposeCode: true,
        })
      }
      const announced = model.deprecated_at ? Date.parse(model.deprecated_at) : retireAt
      ex.headers.set(`${prefix}model-status`, 'deprecated')
      ex.headers.set('deprecation', `@${Math.floor(announced / 1000)}`)
      ex.headers.set('sunset', new Date(retireAt).toUTCString())
      return model
    }
    return {
      // Not async: nothing to do after next(), so its promise is handed back as it is.
      request(ex, next) {
        const body = (ex.body ?? {}) as { model?: unknown; reasoning_effort?: unknown }
        let requested = body.model
        if (requested === undefined || requested === null || requested === '') {
          if (!config.default_model) throw new GatewayError(400, 'model is required', { code: 'invalid_request' })
          requested = kernel.catalog.defaultModel
        }
        if (typeof requested !== 'string')
          throw new GatewayError(400, 'model must be a string', { code: 'invalid_request' })
        const { catalog } = kernel
        const family = catalog.family(requested)
        let model: ModelConfig | undefined
        let familyLevel: ReasoningLevel | undefined
        if (requested === 'auto') {
          const b = body as {
            messages?: unknown
            tools?: unknown
            tool_choice?: unknown
            response_format?: { type?: string }
          }
          model = chooseAutoModel(
            catalog,
            {
              images: hasImageParts(b.messages),
              tools: b.tools !== undefined,
              toolChoice: b.tool_choice !== undefined,
              schema: b.response_format?.type === 'json_schema',
              group: ex.principal?.group,
              keyId: ex.principal?.keyId,
            },
            kernel.now(),
            queueLoadOf(kernel),
          )
          ex.headers.set(`${ex.headerPrefix}model-auto`, model.id)
        } else if (family) {
          familyLevel = parseEffort(body.reasoning_effort) ?? family.default_level
          model = catalog.model(family.members[familyLevel])
        } else {
          model = catalog.model(requested) ?? catalog.byReportedName(requested)
        }
        if (!model) throw new GatewayError(404, `model ${requested} is not registered`)
        model = retirement(model, ex)
        if (!types.has(model.model_type))
          throw new GatewayError(400, `model ${requested} is ${notA}`, { code: 'invalid_request' })
        if (config.endpoint === 'completions' && !model.supports_completions)
          throw new GatewayError(400, `model ${requested} does not support completions`, { code: 'invalid_request' })
        if (model.enabled === false) throw new GatewayError(403, 'model is disabled')
        if (!catalog.permits(ex.principal, [requested, model.id, ...(family ? [family.id] : [])]))
          throw new GatewayError(403, 'model not permitted for tenant')
        ex.state.model = { requested, model, family, familyLevel }
        if (family) ex.headers.set(`${ex.headerPrefix}model-variant`, family.id)
        return next()
      },
    }
  },
})
