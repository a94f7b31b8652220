/**
 * The embedder: an OpenAI-compatible embeddings server for the Universal Sentence Encoder
 * lite, in vLLM's shapes (`POST /v1/embeddings`, `POST /tokenize`, `GET /v1/models`,
 * `GET /health`), on a loopback port. The gateway reaches it through the same HTTP adapter as
 * TEI, vLLM or Infinity, so queueing, budgets and records run unchanged. The model runs in a
 * worker thread (embedder-worker.ts).
 */
import crypto from 'node:crypto'
import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import type { EmbedderWorker } from './embedder-worker.js'
import {
  EmbedderError,
  MAX_TOKENS,
  readEmbeddingsRequest,
  readTokenizeRequest,
} from '../../../protocols/openai/vllm-embeddings-request.js'
import { USE_LITE_DIMENSIONS } from './use-lite-model.js'

/** Bodies beyond this are refused before parsing: 2,048 long texts fit well within it. */
const MAX_BODY_BYTES = 16 * 1024 * 1024

export function createEmbedderServer(worker: EmbedderWorker, served: string): http.Server {
  return http.createServer((req, res) => {
    answer(req, res, worker, served).catch((err: unknown) => {
      const e =
        err instanceof EmbedderError
          ? err
          : new EmbedderError(500, err instanceof Error ? err.message : 'internal error')
      send(res, e.status, { error: { message: e.message, type: errorType(e.status), param: e.param, code: e.status } })
    })
  })
}

async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  worker: EmbedderWorker,
  served: string,
): Promise<void> {
  const route = `${req.method} ${(req.url ?? '').split('?')[0]}`
  if (route === 'GET /health') return send(res, 200, {})
  if (route === 'GET /v1/models') {
    return send(res, 200, {
      object: 'list',
      data: [{ id: served, object: 'model', created: 0, owned_by: 'sluice', max_model_len: MAX_TOKENS }],
    })
  }
  if (route === 'POST /tokenize') {
    const [tokens = []] = await worker.tokenize([readTokenizeRequest(await readJson(req), served)])
    return send(res, 200, { count: tokens.length, max_model_len: MAX_TOKENS, tokens })
  }
  if (route !== 'POST /v1/embeddings') throw new EmbedderError(404, `no route ${route}`)
  const request = readEmbeddingsRequest(await readJson(req), served, USE_LITE_DIMENSIONS)
  const { vectors, tokens } = await worker.embed(request.texts, MAX_TOKENS)
  const over = tokens.findIndex((ids) => ids.length > MAX_TOKENS)
  if (over >= 0) {
    throw new EmbedderError(
      400,
      `This model's maximum context length is ${MAX_TOKENS} tokens. However, you requested ${tokens[over]!.length} tokens in the input for embedding generation. Please reduce the length of the input.`,
      'input',
    )
  }
  const promptTokens = tokens.reduce((sum, ids) => sum + ids.length, 0)
  send(res, 200, {
    id: `embd-${crypto.randomUUID().replaceAll('-', '')}`,
    object: 'list',
    created: Math.floor(Date.now() / 1000),
    model: served,
    data: vectors.map((v, index) => ({
      index,
      object: 'embedding',
      embedding:
        request.format === 'base64'
          ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')
          : Array.from(v),
    })),
    usage: {
      prompt_tokens: promptTokens,
      total_tokens: promptTokens,
      completion_tokens: 0,
      prompt_tokens_details: null,
    },
  })
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_BODY_BYTES) throw new EmbedderError(413, `the body is over ${MAX_BODY_BYTES} bytes`)
    chunks.push(chunk)
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown
  } catch {
    throw new EmbedderError(400, 'the body is not valid JSON')
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

/** vLLM's `type` for a status. */
function errorType(status: number): string {
  if (status >= 500) return 'InternalServerError'
  return (
    ({ 404: 'NotFoundError', 413: 'BadRequestError', 422: 'UnprocessableEntityError' } as Record<number, string>)[
      status
    ] ?? 'BadRequestError'
  )
}
