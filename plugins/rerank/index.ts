/**
 * rerank: orders documents by their relevance to a query with a reranker (a cross-encoder
 * served by TEI, vLLM or a Cohere-compatible server). POST /rerank takes the Cohere/Jina shape;
 * the request is translated to the model's server API, sent through the kernel's one upstream
 * call, and its scores come back ranked, best first, cut to `top_n`. Usage is the server's
 * token count, or the gateway's when the server reports none.
 */
import { GatewayError, definePlugin, reply } from '../../kernel/contract/index.js'
import { rerankRequestSchema } from '../../schemas/rerank-request.schema.js'
import {
  documentText,
  estimatedRerankTokens,
  objectOf,
  ranked,
  rerankDemand,
  rerankReply,
  type RerankDocument,
} from '../../protocols/rerank/ranking.js'
import { configSchema } from './schema.js'
import { rerankApiOf } from './rerank-api.js'
import { fitPairs, overLimit, serverRatios } from './fit-pairs.js'
import { isInputTooLong, SAFE_TOKEN_RATIO } from '../../domains/query/knowledge/input-fit.js'
import type { ModelConfig } from '../../schemas/models.schema.js'

/** The texts of a request's documents (the body schema has checked their shape). */
function documentsOf(body: unknown): string[] {
  const docs = (body as { documents?: unknown }).documents
  return Array.isArray(docs) ? (docs as RerankDocument[]).map(documentText) : []
}

export default definePlugin({
  name: 'rerank',
  config: configSchema,
  requires: ['model'],
  body: rerankRequestSchema,
  reachesModel: {
    demand: (ex) => {
      const query = (ex.body as { query?: unknown }).query
      return rerankDemand(typeof query === 'string' ? query : '', documentsOf(ex.body))
    },
  },
  setup(_config, kernel) {
    return {
      async request(ex, next) {
        const resolved = ex.state.model
        const model = resolved.model
        if (model.model_type !== 'rerank')
          throw new GatewayError(400, `model ${resolved.requested} is not a rerank model`, { code: 'invalid_request' })
        const body = ex.body
        const documents = documentsOf(body)
        // A top_n beyond the documents keeps them all; servers differ on whether it is an error.
        const topN = body.top_n === undefined ? undefined : Math.min(body.top_n, documents.length)
        // Each pair is fitted to the model's window (fit-pairs.ts): the primary model's by its
        // server's tokenizer ratios when some text would not fit at the safe estimate.
        const tooLong = model.context_window === undefined ? [] : overLimit(body.query, documents, model.context_window)
        const ratioOf = tooLong.length ? await serverRatios(ex, kernel, model, tooLong) : () => SAFE_TOKEN_RATIO
        const askFor = (m: ModelConfig) => {
          if (m.context_window === undefined) return { query: body.query, documents, topN }
          const fitted = fitPairs(
            body.query,
            documents,
            m.context_window,
            m === model ? ratioOf : () => SAFE_TOKEN_RATIO,
          )
          if (fitted.cut > 0) ex.log.debug('rerank pairs fitted to the model window', { model: m.id, cut: fitted.cut })
          return { query: fitted.query, documents: fitted.documents, topN }
        }
        let sentAsk = askFor(model)
        // Each model is asked in its own server's API (a fallback's may differ from the first's).
        const callFor = (m: ModelConfig) => {
          const { api, path } = rerankApiOf(m)
          sentAsk = m === model ? sentAsk : askFor(m)
          return {
            model: m,
            path,
            body: JSON.stringify(api.request(sentAsk, m.served_name ?? m.id)),
            accept: 'application/json',
          }
        }
        let res: Awaited<ReturnType<typeof kernel.backends.callText>>
        try {
          res = await kernel.backends.callText(ex, {
            ...callFor(model),
            refit: model.fallbacks?.length ? callFor : undefined,
          })
        } catch (err) {
          // The pairs were fitted: a server that still says "too long" is the server's failure (502), not the caller's.
          if (
            err instanceof GatewayError &&
            err.code === 'upstream_error' &&
            err.status < 500 &&
            isInputTooLong(err.message)
          )
            throw new GatewayError(
              502,
              `reranker ${ex.usage.model ?? model.id} refused a fitted (query, document) pair as too long: ${err.message}`,
              { code: 'upstream_failed', cause: err },
            )
          throw err
        }
        const answered =
          ex.usage.fallbackFrom === undefined ? model : (kernel.catalog.model(ex.usage.model ?? model.id) ?? model)
        const sent = parseUpstream(res.text)
        const read = rerankApiOf(answered).api.read(sent, documents.length)
        if ('malformed' in read)
          throw new GatewayError(502, `upstream sent a malformed rerank reply: ${read.malformed}`, {
            code: 'upstream_failed',
          })
        const tokens = read.tokens ?? estimatedRerankTokens(sentAsk.query, sentAsk.documents)
        ex.usage.report({ inputTokens: tokens, outputTokens: 0 })
        const upstreamModel = objectOf(sent)?.model
        ex.usage.upstreamModel = typeof upstreamModel === 'string' ? upstreamModel : undefined
        ex.usage.firstTokenAt = kernel.now()
        ex.reply = reply.json(
          rerankReply(
            `rerank-${ex.id}`,
            answered.id,
            ranked(read.scores, topN),
            documents,
            body.return_documents === true,
            tokens,
          ),
        )
        await next()
      },
    }
  },
})

function parseUpstream(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (err) {
    throw new GatewayError(502, 'upstream request failed', { code: 'upstream_failed', cause: err })
  }
}
