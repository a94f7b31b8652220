/**
 * query-image: the Query service's `image` body type (spec 001, rule 2). The prompt goes to the
 * gateway's images route through kernel.call under the project's key (queued, budgeted and
 * recorded like a client's request); the images come back in the query response envelope as
 * `response.response = [{b64_json, mime_type}]`, with the call's usage_metric and cost.
 */
import { randomUUID } from 'node:crypto'
import { GatewayError, definePlugin, reply, unitPrices, valueOf } from '../../kernel/contract/index.js'
import { queryResponse } from '../../protocols/query/response.js'
import { mediaMetadata } from '../../protocols/query/media-metadata.js'
import { mediaRequestModel } from '../../protocols/query/media-model.js'
import type { QueryImageRequest } from '../../schemas/query-media.schema.js'
import { configSchema } from './schema.js'

const MIME: Readonly<Record<string, string>> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' }

interface ImagesReply {
  data?: Array<{ b64_json?: unknown }>
  output_format?: unknown
  size?: unknown
}

export default definePlugin({
  name: 'query-image',
  config: configSchema,
  requires: ['queryAuth', 'principal'],
  setup(config, kernel) {
    const route = config.route
    return {
      async request(ex, next) {
        const body = ex.body as QueryImageRequest
        const model = mediaRequestModel(ex.state.queryAuth.token.kind, body, kernel.catalog.models(), 'image')
        const call = {
          model: model.id,
          prompt: body.query,
          n: body.n ?? 1,
          response_format: 'b64_json',
          ...(body.size ? { size: body.size } : {}),
        }
        const result = await kernel.call(route, call, { principal: ex.principal, signal: ex.signal, parentId: ex.id })
        const sent = (result.reply.kind === 'json' ? result.reply.body : undefined) as ImagesReply | undefined
        if (!Array.isArray(sent?.data))
          throw new GatewayError(502, 'the images route sent no images', { code: 'upstream_failed' })
        const mimeType = MIME[typeof sent.output_format === 'string' ? sent.output_format : 'png'] ?? 'image/png'
        const images = sent.data.map((d) => ({ b64_json: String(d.b64_json ?? ''), mime_type: mimeType }))
        const used = result.usage.used()
        const metadata = mediaMetadata(
          {
            queryId: `q-${randomUUID()}`,
            modelId: model.id,
            used,
            prices: unitPrices(model.prices),
            cost: valueOf(model.prices, used),
          },
          { images: images.length, size: typeof sent.size === 'string' ? sent.size : (body.size ?? 'auto') },
        )
        ex.reply = reply.json(queryResponse('image', images, metadata))
        await next()
      },
    }
  },
})
