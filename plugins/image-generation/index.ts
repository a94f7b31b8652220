/**
 * image-generation: POST /images/generations, OpenAI's images API. The request goes to the
 * server of the resolved image model through the kernel's one upstream call, with the model's
 * served name; the server's reply passes through as it is (`data[].b64_json`, `usage` …) and its
 * errors with their status and message. Usage is the server's gpt-image-1 token report, or the
 * gateway's count when it sends none (image-usage.ts).
 */
import { GatewayError, definePlugin, reply } from '../../kernel/contract/index.js'
import type { ImagesRequest } from '../../schemas/images-request.schema.js'
import { configSchema } from './schema.js'
import { imageDemand, imageReport } from './image-usage.js'

declare module '../../kernel/contract/index.js' {
  interface ExchangeState {
    /** What the image step asked for: for records and the Query service's metadata. */
    imageGeneration?: { modelId: string; images: number; size: string | undefined }
  }
}

const bodyOf = (body: unknown) => body as ImagesRequest

export default definePlugin({
  name: 'image-generation',
  config: configSchema,
  requires: ['model'],
  reachesModel: {
    demand: (ex) => {
      const b = bodyOf(ex.body)
      return imageDemand(typeof b.prompt === 'string' ? b.prompt : '', b.n ?? 1, b.size)
    },
  },
  setup(_config, kernel) {
    return {
      async request(ex, next) {
        const { model, requested } = ex.state.model
        if (model.model_type !== 'image')
          throw new GatewayError(400, `model ${requested} is not an image generation model`, {
            code: 'invalid_request',
          })
        const body = bodyOf(ex.body)
        // Everything the client sent, under the server's own name for the model.
        const upstream = { ...body, model: model.served_name ?? model.id }
        const res = await kernel.backends.callText(ex, {
          model,
          path: '/v1/images/generations',
          body: JSON.stringify(upstream),
          accept: 'application/json',
        })
        let sent: unknown
        try {
          sent = JSON.parse(res.text)
        } catch (err) {
          throw new GatewayError(502, 'upstream request failed', { code: 'upstream_failed', cause: err })
        }
        const data = (sent as { data?: unknown } | null)?.data
        if (!Array.isArray(data))
          throw new GatewayError(502, 'upstream sent a malformed images reply: no data list', {
            code: 'upstream_failed',
          })
        const size = typeof (sent as { size?: unknown }).size === 'string' ? (sent as { size: string }).size : body.size
        ex.usage.report(imageReport(sent, body.prompt, data.length, size))
        ex.usage.firstTokenAt = kernel.now()
        // The model that drew them: a fallback's (models.yaml `fallbacks`) when one answered.
        ex.state.imageGeneration = { modelId: ex.usage.model ?? model.id, images: data.length, size }
        ex.reply = reply.json(sent)
        await next()
      },
    }
  },
})
