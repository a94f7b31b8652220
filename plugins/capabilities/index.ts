/**
 * capabilities: refuses, before any model server is called, image URLs that are neither a
 * base64 data URL nor a public https:// URL (whatever the model), and what the chosen model
 * cannot do: tools without supports_function_calling, tool_choice without
 * supports_tool_choice, image parts for a model that neither reads images nor has its vision
 * boon on. For embedding models: `dimensions` the model does not allow, and token-id inputs
 * longer than its context window (text is counted by the model server, whose 400 passes
 * through). For chat and completions bodies: what a request may ask of the model (models.yaml
 * `limits`: `n`, output tokens, top logprobs; request-bounds.ts). Everything else of the
 * request (response_format included) passes through as sent.
 */
import { GatewayError, definePlugin } from '../../kernel/contract/index.js'
import { boonActs } from '../../domains/gateway/boons.js'
import type { ModelConfig } from '../../schemas/models.schema.js'
import { hasImageParts } from '../../domains/gateway/auto-model.js'
import { IMAGE_URL_RULE, breaksImageRule, imageParts } from '../../protocols/openai/image-url.js'
import { dimensionsRefusal, inputList } from '../../protocols/openai/embeddings.js'
import { configSchema } from './schema.js'
import { checkRequestBounds } from './request-bounds.js'

/** Whether the model's vision boon will describe images for it on this request. */
export function visionBoonOn(model: ModelConfig, boonsHeader: string | undefined): boolean {
  return boonActs(model, 'vision') && boonsHeader?.trim().toLowerCase() !== 'off'
}

export default definePlugin({
  name: 'capabilities',
  config: configSchema,
  requires: ['model'],
  provides: [],
  setup(config) {
    return {
      // Not async: nothing to do after next(), so its promise is handed back as it is.
      request(ex, next) {
        if (ex.state.model.model.model_type === 'embedding') {
          checkEmbeddings(
            ex.state.model.model,
            ex.state.model.requested,
            ex.body as { input?: unknown; dimensions?: unknown },
          )
          return next()
        }
        const body = ex.body as { tools?: unknown[]; tool_choice?: unknown; messages?: unknown }
        checkRequestBounds(ex.body as object, {
          model: ex.state.model.model,
          requested: ex.state.model.requested,
          // Set by the openai-responses step: the body was a Responses request, whose field this is.
          outputField: ex.state.responses ? 'max_output_tokens' : undefined,
        })
        const images = imageParts(body.messages)
        if (images.length > config.max_images)
          throw new GatewayError(
            400,
            `too many images: ${images.length} image parts, at most ${config.max_images} per request`,
            { code: 'invalid_request' },
          )
        // A model server downloads an https image itself: never one on the operator's network.
        const refused = images.find(breaksImageRule)
        if (refused)
          throw new GatewayError(400, `${refused.path} must be ${IMAGE_URL_RULE}`, { code: 'invalid_request' })
        const model = ex.state.model.model
        if (body.tools !== undefined && !model.supports_function_calling)
          throw new GatewayError(400, `model ${ex.state.model.requested} does not support tools`, {
            code: 'invalid_request',
          })
        if (body.tool_choice !== undefined && !model.supports_tool_choice)
          throw new GatewayError(400, `model ${ex.state.model.requested} does not support tool_choice`, {
            code: 'invalid_request',
          })
        if (
          config.images === 'check' &&
          !model.supports_vision &&
          hasImageParts(body.messages) &&
          !visionBoonOn(model, ex.header(`${ex.headerPrefix}boons`))
        )
          throw new GatewayError(400, 'model does not accept images; use a model with vision', {
            code: 'invalid_request',
          })
        return next()
      },
    }
  },
})

/** An embeddings request against its model: the dimensions it allows, its context window for token ids. */
function checkEmbeddings(model: ModelConfig, requested: string, body: { input?: unknown; dimensions?: unknown }): void {
  if (typeof body.dimensions === 'number') {
    const refusal = dimensionsRefusal(model, requested, body.dimensions)
    if (refusal) throw new GatewayError(400, refusal, { code: 'invalid_request' })
  }
  const window = model.context_window ?? 8192
  const inputs = inputList(body.input)
  const long = inputs.findIndex((item) => Array.isArray(item) && item.length > window)
  if (long >= 0)
    throw new GatewayError(
      400,
      `input[${long}] has ${(inputs[long] as unknown[]).length} tokens; model ${requested} takes at most ${window}`,
      { code: 'invalid_request' },
    )
}
